import { setTimeout as sleep } from 'node:timers/promises';
import type { AppProcess } from './app-process.js';

export interface AppWatch {
  /** `/health` latency, one probe at a time every 100 ms, with when each started (`performance.now()`). */
  readonly health: ReadonlyArray<{ readonly at: number; readonly ms: number }>;
  /** VmRSS samples every 250 ms, MB. */
  readonly rssMb: readonly number[];
  stop(): Promise<void>;
}

/**
 * Watches the app from outside while it runs: its RSS from /proc, and how long its `/health` route takes
 * to answer, which is its event-loop lag plus a little HTTP (compare with the idle samples taken first).
 */
export function watchApp(app: AppProcess): AppWatch {
  const health: Array<{ at: number; ms: number }> = [];
  const rssMb: number[] = [];
  let stopped = false;
  const probing = (async () => {
    while (!stopped) {
      const started = performance.now();
      await fetch(app.healthUrl)
        .then((response) => response.text())
        .catch(() => undefined);
      health.push({ at: started, ms: performance.now() - started });
      await sleep(100);
    }
  })();
  const sampling = (async () => {
    while (!stopped) {
      const memory = app.memory();
      if (memory) rssMb.push(memory.rssMb);
      await sleep(250);
    }
  })();
  return {
    health,
    rssMb,
    async stop() {
      stopped = true;
      await Promise.all([probing, sampling]);
    },
  };
}
