import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * How far behind this process is. One event loop serves Slack's acknowledgements (three seconds, or
 * Slack delivers again), clicks, and the turns themselves; when it falls behind, the work that can wait
 * (turns already stored, live previews) yields to the work that cannot.
 */
export interface LoadPressure {
  /** The event loop's delay over the last window, p99, in ms. */
  lagMs(): number;
  /** Behind enough that optional work (a live preview, an hourglass) should not start. */
  busy(): boolean;
  close(): void;
}

export interface LoadPressureOptions {
  /** How often the window closes. */
  readonly windowMs?: number;
  /** The lag above which the process counts as busy. */
  readonly busyAboveMs?: number;
}

const defaultBusyAboveMs = 50;

/** The real gauge: Node's event loop delay histogram, read and reset once a window. */
export function watchEventLoop(options: LoadPressureOptions = {}): LoadPressure {
  const busyAboveMs = options.busyAboveMs ?? defaultBusyAboveMs;
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let lagMs = 0;
  const timer = setInterval(() => {
    // Nanoseconds; the histogram's floor is its own resolution, which is not lag.
    lagMs = Math.max(0, histogram.percentile(99) / 1e6 - 10);
    histogram.reset();
  }, options.windowMs ?? 250);
  timer.unref();
  return {
    lagMs: () => lagMs,
    busy: () => lagMs > busyAboveMs,
    close: () => {
      clearInterval(timer);
      histogram.disable();
    },
  };
}

/**
 * Additive increase, multiplicative decrease, as TCP does with its window: the number of turns allowed
 * to run at once shrinks fast while the loop lags and grows back one at a time when it keeps up. Turns
 * that wait are safe on disk; an acknowledgement that waits is delivered again by Slack.
 *
 * As in TCP, the limit grows only while it is what holds turns back (`saturated`), and in `slowStart`
 * (a process that has not lagged yet) it doubles instead of adding one. A process starts at the floor,
 * so the first burst it meets, while it is still cold, does not start every allowed turn at once ahead
 * of the acknowledgements; doubling every quarter second, it reaches 32 within a second of the burst if
 * the loop keeps up.
 */
export function nextConcurrency(
  current: number,
  observed: { readonly lagMs: number; readonly saturated?: boolean },
  limits: {
    readonly min: number;
    readonly max: number;
    readonly busyAboveMs?: number;
    readonly slowStart?: boolean;
  },
): number {
  const busy = observed.lagMs > (limits.busyAboveMs ?? defaultBusyAboveMs);
  const grown = limits.slowStart ? current * 2 : current + 1;
  const next = busy ? Math.floor(current * 0.7) : observed.saturated === false ? current : grown;
  return Math.min(limits.max, Math.max(limits.min, next));
}
