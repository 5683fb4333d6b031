import { type MethodLimit, publishedLimits } from './published-limits.js';

/**
 * What is left of each method's rate limit, as this process estimates it: a token bucket per method (and
 * per channel for `chat.postMessage`) refilled at the published rate, spent by every call sent and
 * emptied by a 429. Calls are paced by it, so a burst of finished turns does not send Slack a burst of
 * calls it will refuse: a call waits until its method has a call left. What is only nice to have (a
 * preview, an hourglass, a status line) goes only while its method keeps half a burst in reserve, so it
 * never spends what a card, a rewrite or an answer will need.
 */
export class SlackCallBudget {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #now: () => number;
  readonly #limits: Readonly<Record<string, MethodLimit>>;

  constructor(
    now: () => number = () => performance.now(),
    limits: Readonly<Record<string, MethodLimit>> = publishedLimits,
  ) {
    this.#now = now;
    this.#limits = limits;
  }

  /** Counts a call sent. */
  spend(method: string, channel?: string): void {
    const bucket = this.#bucket(method, channel);
    if (bucket) bucket.state.tokens -= 1;
  }

  /**
   * Slack answered 429 and asked to wait `retryAfterMs`: whatever this process thought was left, the
   * method has a call again only then (Slack's word wins over the estimate, either way).
   */
  exhausted(method: string, retryAfterMs: number, channel?: string): void {
    const bucket = this.#bucket(method, channel);
    if (bucket) bucket.state.tokens = 1 - retryAfterMs * (bucket.limit.perMinute / 60_000);
  }

  /**
   * Zero when a call that is only nice to have may go now (the method keeps its reserve after it);
   * otherwise how long until it could, in milliseconds.
   */
  spareIn(method: string, channel?: string): number {
    const bucket = this.#bucket(method, channel);
    if (!bucket) return 0;
    const needed = reserveOf(bucket.limit) + 1;
    const missing = needed - bucket.state.tokens;
    if (missing <= 0) return 0;
    return Math.ceil(missing / (bucket.limit.perMinute / 60_000));
  }

  /** Zero when a call may go now; otherwise how long until its method has a call left, in milliseconds. */
  availableIn(method: string, channel?: string): number {
    const bucket = this.#bucket(method, channel);
    if (!bucket) return 0;
    const missing = 1 - bucket.state.tokens;
    if (missing <= 0) return 0;
    return Math.ceil(missing / (bucket.limit.perMinute / 60_000));
  }

  /** Calls left now (fractional), for metrics and tests; undefined for a method with no published tier. */
  left(method: string, channel?: string): number | undefined {
    return this.#bucket(method, channel)?.state.tokens;
  }

  #bucket(method: string, channel: string | undefined) {
    const limit = this.#limits[method];
    if (!limit) return undefined;
    const key = limit.perChannel ? `${method} ${channel ?? ''}` : method;
    const now = this.#now();
    let state = this.#buckets.get(key);
    if (!state) {
      state = { tokens: limit.burst, at: now };
      this.#buckets.set(key, state);
    }
    state.tokens = Math.min(limit.burst, state.tokens + (now - state.at) * (limit.perMinute / 60_000));
    state.at = now;
    return { limit, state };
  }
}

/** Half a burst is kept for what must arrive. */
function reserveOf(limit: MethodLimit): number {
  return limit.burst / 2;
}
