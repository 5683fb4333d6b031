import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TurnOutcome } from '../agent/turn-outcome.js';
import type { TurnRunner } from '../agent/turn-runner.js';
import type { Turn } from '../store/records.js';
import type { ClaimedTurn, Store } from '../store/store.js';
import { type LoadPressure, nextConcurrency } from './load-pressure.js';
import { silentObserver } from './turn-observer.js';
import { restartAfterIdleMs, TurnScheduler } from './turn-scheduler.js';

describe('nextConcurrency', () => {
  const limits = { min: 2, max: 32 };

  it('shrinks by 30% while the loop lags, never below the floor', () => {
    expect(nextConcurrency(32, { lagMs: 200 }, limits)).toBe(22);
    expect(nextConcurrency(3, { lagMs: 200 }, limits)).toBe(2);
    expect(nextConcurrency(2, { lagMs: 200 }, limits)).toBe(2);
  });

  it('grows back one at a time while it keeps up, never above the limit', () => {
    expect(nextConcurrency(10, { lagMs: 5 }, limits)).toBe(11);
    expect(nextConcurrency(32, { lagMs: 0 }, limits)).toBe(32);
  });

  it('doubles in slow start while it keeps up, never above the limit, and still shrinks when it lags', () => {
    expect(nextConcurrency(2, { lagMs: 0 }, { ...limits, slowStart: true })).toBe(4);
    expect(nextConcurrency(20, { lagMs: 0 }, { ...limits, slowStart: true })).toBe(32);
    expect(nextConcurrency(16, { lagMs: 200 }, { ...limits, slowStart: true })).toBe(11);
  });

  it('counts lag as pressure only above the threshold', () => {
    expect(nextConcurrency(10, { lagMs: 50 }, limits)).toBe(11);
    expect(nextConcurrency(10, { lagMs: 51 }, limits)).toBe(7);
    expect(nextConcurrency(10, { lagMs: 51 }, { ...limits, busyAboveMs: 100 })).toBe(11);
  });
});

describe('TurnScheduler under load', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A scheduler whose turns run until `release()`: each held turn is a turn the limit keeps waiting. */
  function schedulerWithHeldTurns(pressure?: LoadPressure) {
    let release = () => {};
    let released: Promise<void>;
    const holdNext = () => {
      released = new Promise<void>((resolve) => {
        release = resolve;
      });
    };
    holdNext();
    /** The release each turn waits for: the one current when it was held, not when it starts. */
    const heldBy = new Map<string, Promise<void>>();
    const runner = {
      async runClaimed(claim: ClaimedTurn): Promise<TurnOutcome> {
        await heldBy.get(claim.turn.id);
        return { type: 'not-claimed', turnId: claim.turn.id, reason: 'held by the test' };
      },
    } as unknown as TurnRunner;
    // Shutdown hands back the held turns that never started; nothing else here reaches the store.
    const store = { turns: { release: async () => {} } } as unknown as Store;
    const scheduler = new TurnScheduler({
      store,
      runner,
      observer: silentObserver,
      logger: pino({ level: 'silent' }),
      maxConcurrentTurns: 32,
      pressure,
    });
    let held = 0;
    const hold = (turns: number) => {
      for (let i = 0; i < turns; i++) {
        const turn = { id: `turn-${held}`, conversationId: `conversation-${held}` } as Turn;
        heldBy.set(turn.id, released);
        held += 1;
        void scheduler.runClaimed({ turn, fence: {}, mode: 'run' } as unknown as ClaimedTurn);
      }
    };
    /** Lets every held turn finish; turns held after this wait again. */
    const finishHeld = () => {
      release();
      holdNext();
    };
    const stop = async () => {
      release();
      vi.useRealTimers();
      await scheduler.shutdown(0);
    };
    return { scheduler, hold, finishHeld, stop };
  }

  /** Held turns under a lag gauge the test sets (`lag.lagMs`), on fake timers. */
  function adaptingScheduler(initialLagMs: number) {
    vi.useFakeTimers();
    const lag = { lagMs: initialLagMs };
    const pressure: LoadPressure = {
      lagMs: () => lag.lagMs,
      busy: () => lag.lagMs > 50,
      close: () => {},
    };
    return { lag, ...schedulerWithHeldTurns(pressure) };
  }

  it('lets fewer turns run at once while the process lags, and as many as configured once it keeps up', async () => {
    const { lag, scheduler, hold, stop } = adaptingScheduler(400);
    hold(40);
    expect(scheduler.concurrency).toBe(2);

    await vi.advanceTimersByTimeAsync(2_500);
    expect(scheduler.concurrency).toBe(2);

    lag.lagMs = 0;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(scheduler.concurrency).toBe(6);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(scheduler.concurrency).toBe(32);
    await stop();
  });

  it('starts at the floor and doubles while turns wait and the loop keeps up, then grows one at a time once it has lagged', async () => {
    const { lag, scheduler, hold, stop } = adaptingScheduler(0);
    hold(40);
    expect(scheduler.concurrency).toBe(2);

    await vi.advanceTimersByTimeAsync(750);
    expect(scheduler.concurrency).toBe(16);

    lag.lagMs = 400;
    await vi.advanceTimersByTimeAsync(250);
    expect(scheduler.concurrency).toBe(11);

    lag.lagMs = 0;
    await vi.advanceTimersByTimeAsync(500);
    expect(scheduler.concurrency).toBe(13);
    await stop();
  });

  it('does not grow the limit while nothing waits on it', async () => {
    const { scheduler, hold, stop } = adaptingScheduler(0);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(scheduler.concurrency).toBe(2);

    hold(1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(scheduler.concurrency).toBe(2);

    hold(40);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(scheduler.concurrency).toBe(32);
    await stop();
  });

  it('starts over from the floor, in slow start, once nothing has run or waited for a while', async () => {
    const { lag, scheduler, hold, finishHeld, stop } = adaptingScheduler(0);
    hold(40);
    await vi.advanceTimersByTimeAsync(1_000);
    lag.lagMs = 400;
    await vi.advanceTimersByTimeAsync(250);
    lag.lagMs = 0;
    expect(scheduler.concurrency).toBe(22);

    finishHeld();
    await vi.advanceTimersByTimeAsync(restartAfterIdleMs - 1_000);
    expect(scheduler.concurrency).toBe(22);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(scheduler.concurrency).toBe(2);

    // It had lagged before the pause, and still doubles: the slow start is a fresh one.
    hold(40);
    await vi.advanceTimersByTimeAsync(750);
    expect(scheduler.concurrency).toBe(16);
    await stop();
  });

  it('runs as many turns as configured from the start when no pressure gauge is given', async () => {
    const { scheduler, stop } = schedulerWithHeldTurns();
    expect(scheduler.concurrency).toBe(32);
    await stop();
  });
});
