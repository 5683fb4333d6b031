import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TurnRunner } from '../agent/turn-runner.js';
import type { Store } from '../store/store.js';
import { type LoadPressure, nextConcurrency } from './load-pressure.js';
import { silentObserver } from './turn-observer.js';
import { TurnScheduler } from './turn-scheduler.js';

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

  it('lets fewer turns run at once while the process lags, and as many as configured once it keeps up', async () => {
    vi.useFakeTimers();
    let lagMs = 400;
    const pressure: LoadPressure = { lagMs: () => lagMs, busy: () => lagMs > 50, close: () => {} };
    const scheduler = new TurnScheduler({
      store: {} as Store,
      runner: {} as TurnRunner,
      observer: silentObserver,
      logger: pino({ level: 'silent' }),
      maxConcurrentTurns: 32,
      pressure,
    });
    expect(scheduler.concurrency).toBe(32);

    await vi.advanceTimersByTimeAsync(2_500);
    expect(scheduler.concurrency).toBe(2);

    lagMs = 0;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(scheduler.concurrency).toBe(6);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(scheduler.concurrency).toBe(32);
    await scheduler.shutdown(0);
  });
});
