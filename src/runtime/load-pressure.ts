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

export const defaultBusyAboveMs = 50;

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

/** A process that is never behind: tests and benchmarks that drive the runtime directly. */
export const noPressure: LoadPressure = { lagMs: () => 0, busy: () => false, close: () => {} };

/**
 * Additive increase, multiplicative decrease, as TCP does with its window: the number of turns allowed
 * to run at once shrinks fast while the loop lags and grows back one at a time when it keeps up. Turns
 * that wait are safe on disk; an acknowledgement that waits is delivered again by Slack.
 */
export function nextConcurrency(
  current: number,
  observed: { readonly lagMs: number },
  limits: { readonly min: number; readonly max: number; readonly busyAboveMs?: number },
): number {
  const busy = observed.lagMs > (limits.busyAboveMs ?? defaultBusyAboveMs);
  const next = busy ? Math.floor(current * 0.7) : current + 1;
  return Math.min(limits.max, Math.max(limits.min, next));
}
