import { describe, expect, it } from 'vitest';
import { ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { createRuntime } from '../../../src/runtime/create-runtime.js';
import type { SweepTimer } from '../../../src/runtime/recovery.js';
import type { Store } from '../../../src/store/index.js';
import { createTestClock } from '../../support/test-clock.js';
import { createTestLogger } from '../../support/test-logger.js';
import { corePolicy, sqliteEngine } from './core-harness.js';

/** The real store, except that the sweep's first write waits until the test lets it go. */
function storeWithSlowExpiry(real: Store) {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered: () => void = () => undefined;
  const inSweep = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const bound = <T extends object>(target: T, key: string | symbol) => {
    const value = Reflect.get(target, key, target);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  const approvals = new Proxy(real.approvals, {
    get: (target, key) =>
      key === 'expireOverdue'
        ? async (limit: number) => {
            entered();
            await gate;
            return target.expireOverdue(limit);
          }
        : bound(target, key),
  });
  const store = new Proxy(real, {
    get: (target, key) => (key === 'approvals' ? approvals : bound(target, key)),
  });
  return { store, inSweep, release };
}

/** A timer the test fires by hand. */
function manualTimer(): SweepTimer & { fire(): void } {
  let tick: (() => void) | undefined;
  return {
    setInterval(callback) {
      tick = callback;
      return {};
    },
    clearInterval() {
      tick = undefined;
    },
    fire() {
      tick?.();
    },
  };
}

describe('shutdown, while a recovery sweep is under way', () => {
  it('waits for the sweep to finish before it returns, so the store is not closed under it', async () => {
    const clock = createTestClock();
    const real = sqliteEngine().open(clock.now) as Store;
    const { store, inSweep, release } = storeWithSlowExpiry(real);
    const log = createTestLogger();
    const runtime = createRuntime({
      store,
      model: new ScriptedChatModel([]),
      policy: corePolicy,
      tools: [],
      directory: { groupMembers: async () => [] },
      logger: log.logger,
      now: clock.now,
    });
    const timer = manualTimer();
    runtime.startSweep(60_000, timer);
    timer.fire();
    await inSweep;

    let returned = false;
    const shutdown = runtime.shutdown(100).then(() => {
      returned = true;
    });
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(returned).toBe(false);

    release();
    await shutdown;
    await real.close();
    expect(log.problems()).toEqual([]);
  });
});
