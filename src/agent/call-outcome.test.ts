import { describe, expect, it } from 'vitest';
import { TurnAbortedError, TurnStoppedError } from './agent-errors.js';
import { cutShort, notRunOutcome } from './call-outcome.js';

describe('notRunOutcome', () => {
  it.each([
    { source: 'approval', by: 'U0BOB', outcome: { type: 'denied', by: 'U0BOB' } },
    { source: 'approval', by: undefined, outcome: { type: 'refused', by: 'holdfast' } },
    { source: 'expired', by: undefined, outcome: { type: 'expired' } },
    { source: 'policy', by: undefined, outcome: { type: 'refused', by: 'policy' } },
  ] as const)('reads a denial from $source (by $by) as $outcome.type', ({ source, by, outcome }) => {
    expect(notRunOutcome({ type: 'denied', source, by, reason: 'no.' })).toEqual(outcome);
  });
});

describe('cutShort', () => {
  it('is nothing while the turn runs on', () => {
    expect(cutShort(new AbortController().signal)).toBeUndefined();
  });

  it('is stopped, by whom, when someone pressed Stop', () => {
    const controller = new AbortController();
    controller.abort(new TurnStoppedError('U0ALICE'));
    expect(cutShort(controller.signal)).toEqual({ type: 'stopped', by: 'U0ALICE' });
  });

  it('is interrupted when a shutdown cut the run off', () => {
    const controller = new AbortController();
    controller.abort(new TurnAbortedError('shutting down'));
    expect(cutShort(controller.signal)).toEqual({ type: 'interrupted' });
  });
});
