import { describe, expect, it, onTestFinished } from 'vitest';
import { TurnAbortedError } from './agent-errors.js';
import { RunningTurns } from './running-turns.js';

describe('RunningTurns', () => {
  it('holds more than ten turns on one shutdown signal without a listener-leak warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    onTestFinished(() => {
      process.off('warning', onWarning);
    });
    const shutdown = new AbortController();
    const turns = new RunningTurns();

    const running = Array.from({ length: 25 }, (_, i) => turns.begin(`turn_${i}`, shutdown.signal));
    await new Promise((resolve) => setImmediate(resolve));

    expect(warnings.map((warning) => warning.name)).not.toContain('MaxListenersExceededWarning');
    shutdown.abort();
    expect(running.map((turn) => turn.controller.signal.reason)).toEqual(
      running.map(() => expect.any(TurnAbortedError)),
    );
  });

  it('leaves a turn that has ended alone at shutdown', () => {
    const shutdown = new AbortController();
    const turns = new RunningTurns();
    const ended = turns.begin('turn_1', shutdown.signal);
    const still = turns.begin('turn_2', shutdown.signal);
    ended.end();

    shutdown.abort();

    expect(ended.controller.signal.aborted).toBe(false);
    expect(still.controller.signal.aborted).toBe(true);
  });

  it('stops a turn that begins after shutdown at once', () => {
    const shutdown = new AbortController();
    shutdown.abort();
    const turn = new RunningTurns().begin('turn_1', shutdown.signal);
    expect(turn.controller.signal.reason).toBeInstanceOf(TurnAbortedError);
  });
});
