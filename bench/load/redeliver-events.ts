/**
 * Slack's side of an event the app did not acknowledge with a 200 within three seconds (Bolt answers 404
 * at that point): Slack sends it again, with `x-slack-retry-num`, nearly at once, then after a minute,
 * then after five, and gives up after the third. Only what falls inside the benchmark's run is sent.
 */
import type { DeliveryOutcome } from './slack-requests.js';

const retryDelaysMs = [1_000, 60_000, 300_000];

export interface Redeliveries {
  /** The first delivery of mention `n` was not a 200; schedules the next one, as Slack would. */
  failed(n: number, outcome: DeliveryOutcome): void;
  /** Redeliveries sent so far. */
  readonly sent: () => number;
  /** Mentions whose last delivery so far did not get a 200. */
  readonly unacknowledged: () => number;
  /** Drops the redeliveries not sent yet (the run is over). */
  cancel(): void;
}

export function redeliverEvents(
  post: (n: number, retry: { num: number; reason: string }) => Promise<DeliveryOutcome>,
): Redeliveries {
  const timers = new Set<NodeJS.Timeout>();
  const failing = new Set<number>();
  let sent = 0;
  const schedule = (n: number, attempt: number, outcome: DeliveryOutcome) => {
    const delay = retryDelaysMs[attempt - 1];
    if (delay === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      sent += 1;
      const reason = 'failure' in outcome && outcome.failure === 'timeout' ? 'http_timeout' : 'http_error';
      void post(n, { num: attempt, reason })
        .catch((error: unknown): DeliveryOutcome => ({ failure: String(error) }))
        .then((next) => {
          if ('status' in next && next.status === 200) failing.delete(n);
          else schedule(n, attempt + 1, next);
        });
    }, delay);
    timers.add(timer);
  };
  return {
    failed(n, outcome) {
      failing.add(n);
      schedule(n, 1, outcome);
    },
    sent: () => sent,
    unacknowledged: () => failing.size,
    cancel() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
