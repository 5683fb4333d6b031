/**
 * Slack's side of an event the app did not acknowledge with a 200 within three seconds (Bolt answers 404
 * at that point): Slack sends it again, with `x-slack-retry-num`, nearly at once, then after a minute,
 * then after five, and gives up after the third. Only what falls inside the benchmark's run is sent.
 */
const retryDelaysMs = [1_000, 60_000, 300_000];

export interface Redeliveries {
  /** The first delivery of mention `n` got `status`; schedules its next delivery if Slack would. */
  failed(n: number, status: number): void;
  /** Redeliveries sent so far. */
  readonly sent: () => number;
  /** Mentions whose last delivery so far did not get a 200. */
  readonly unacknowledged: () => number;
  /** Drops the redeliveries not sent yet (the run is over). */
  cancel(): void;
}

export function redeliverEvents(
  post: (n: number, retry: { num: number; reason: string }) => Promise<number>,
): Redeliveries {
  const timers = new Set<NodeJS.Timeout>();
  const failing = new Set<number>();
  let sent = 0;
  const schedule = (n: number, attempt: number, status: number) => {
    const delay = retryDelaysMs[attempt - 1];
    if (delay === undefined) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      sent += 1;
      const reason = status === 0 ? 'http_error' : 'http_timeout';
      void post(n, { num: attempt, reason })
        .catch(() => 0)
        .then((next) => {
          if (next === 200) failing.delete(n);
          else schedule(n, attempt + 1, next);
        });
    }, delay);
    timers.add(timer);
  };
  return {
    failed(n, status) {
      failing.add(n);
      schedule(n, 1, status);
    },
    sent: () => sent,
    unacknowledged: () => failing.size,
    cancel() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
