/**
 * Slack's published Web API rate limits, as the stand-in Slack enforces them: each method is limited per
 * app per workspace by its tier, and `chat.postMessage` per channel as well. A call over the limit is
 * answered with HTTP 429 and `Retry-After` (whole seconds), the way Slack answers it, and does nothing.
 *
 * Kept apart from the app's own picture of the limits (src/slack/rate-limits) on purpose: a mistake in
 * that table must show up as 429s here, not be copied into the judge.
 *
 * The tiers are the ones on each method's reference page (the `rate_limits` field of the
 * slack-api-ref method files). Slack documents them per minute with "small bursts" allowed; this models
 * each as a token bucket refilled at the per-minute rate that holds a tenth of a minute's calls (at least
 * two), so a burst of a few calls passes and a steady rate over the limit does not.
 */

export interface RateLimit {
  readonly perMinute: number;
  readonly burst: number;
  /** Counted per channel (the `channel` parameter) rather than for the whole workspace. */
  readonly perChannel?: boolean;
}

const tier = (perMinute: number): RateLimit => ({
  perMinute,
  burst: Math.max(2, Math.ceil(perMinute / 10)),
});

const tier2 = tier(20);
const tier3 = tier(50);
const tier4 = tier(100);

/** Slack's published tier of every method holdfast may call. */
export const publishedRateLimits: Readonly<Record<string, RateLimit>> = {
  'chat.startStream': tier2,
  'chat.stopStream': tier2,
  'reactions.remove': tier2,
  'usergroups.users.list': tier2,
  'chat.update': tier3,
  'chat.delete': tier3,
  'reactions.add': tier3,
  'conversations.open': tier3,
  'conversations.replies': tier3,
  'conversations.history': tier3,
  'agents.sessions.setStatus': tier3,
  'chat.appendStream': tier4,
  'chat.postEphemeral': tier4,
  'users.info': tier4,
  'conversations.members': tier4,
  'conversations.info': tier4,
  'views.open': tier4,
  'views.push': tier4,
  'views.update': tier4,
  'views.publish': tier4,
  // "Special": about one message a second in a channel, with short bursts.
  'chat.postMessage': { perMinute: 60, burst: 3, perChannel: true },
  // Special tiers with generous limits of their own: counted as Tier 4 here.
  'assistant.threads.setStatus': tier4,
  'chat.getPermalink': tier4,
  'auth.test': tier4,
};

export interface RateLimitVerdict {
  readonly allowed: boolean;
  /** When refused: whole seconds until a call would be allowed, as Slack's `Retry-After` says. */
  readonly retryAfterSeconds: number;
}

export interface FakeRateLimiter {
  /** Counts a call of `method` (to `channel`) at `now` (ms) and says whether Slack would take it. */
  admit(method: string, channel: string | undefined, now: number): RateLimitVerdict;
  /**
   * Calls that arrived while a 429 told their sender to wait and the wait had not passed: a client that
   * respects Retry-After sends none.
   */
  readonly sentInsideRetryAfter: ReadonlyMap<string, number>;
}

export function createFakeRateLimiter(
  limits: Readonly<Record<string, RateLimit>> = publishedRateLimits,
): FakeRateLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  /** Per bucket, the end of the last Retry-After window handed out. */
  const windows = new Map<string, number>();
  const sentInsideRetryAfter = new Map<string, number>();
  return {
    sentInsideRetryAfter,
    admit(method, channel, now) {
      const limit = limits[method];
      if (!limit) return { allowed: true, retryAfterSeconds: 0 };
      const key = limit.perChannel ? `${method} ${channel ?? ''}` : method;
      if ((windows.get(key) ?? 0) > now)
        sentInsideRetryAfter.set(method, (sentInsideRetryAfter.get(method) ?? 0) + 1);
      const perMs = limit.perMinute / 60_000;
      const bucket = buckets.get(key) ?? { tokens: limit.burst, at: now };
      bucket.tokens = Math.min(limit.burst, bucket.tokens + (now - bucket.at) * perMs);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true, retryAfterSeconds: 0 };
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1_000));
      windows.set(key, Math.max(windows.get(key) ?? 0, now + retryAfterSeconds * 1_000));
      return { allowed: false, retryAfterSeconds };
    },
  };
}
