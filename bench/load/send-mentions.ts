import { setTimeout as sleep } from 'node:timers/promises';
import { epochMs } from './load-script.js';
import type { DeliveryOutcome } from './slack-requests.js';

export interface SentMention {
  readonly n: number;
  /** `epochMs()` when the request went out, and when its response (or failure) came back. */
  readonly sentAt: number;
  readonly ackedAt: number;
  readonly outcome: DeliveryOutcome;
  /** How late it went out against the schedule (the sender's own delay, or the in-flight cap). */
  readonly lagMs: number;
}

/**
 * Sends mentions 0..n-1 on a fixed schedule (`atMs[n]`, ms after the start, ascending), whatever the
 * app's responses do (an open loop: a slow app does not slow the offered load down, so its slowness shows
 * in the figures rather than hiding in fewer requests), with at most `maxInFlight` requests open at once.
 */
export async function sendMentions(options: {
  readonly atMs: readonly number[];
  readonly maxInFlight: number;
  readonly send: (n: number) => Promise<DeliveryOutcome>;
  /** Each mention once its response is in. */
  readonly onAcked?: (mention: SentMention) => void;
}): Promise<{ mentions: SentMention[]; startedAt: number; endedAt: number }> {
  const total = options.atMs.length;
  const mentions: SentMention[] = [];
  const inFlight = new Set<Promise<void>>();
  const startedAt = epochMs();
  let next = 0;
  while (next < total) {
    const elapsed = epochMs() - startedAt;
    let due = next;
    while (due < total && (options.atMs[due] ?? 0) <= elapsed) due += 1;
    while (next < due && inFlight.size < options.maxInFlight) {
      const n = next++;
      const sentAt = epochMs();
      const lagMs = sentAt - (startedAt + (options.atMs[n] ?? 0));
      const request: Promise<void> = options
        .send(n)
        .catch((error: unknown): DeliveryOutcome => ({ failure: String(error) }))
        .then((outcome) => {
          const mention = { n, sentAt, ackedAt: epochMs(), outcome, lagMs };
          mentions.push(mention);
          inFlight.delete(request);
          options.onAcked?.(mention);
        });
      inFlight.add(request);
    }
    if (next < due) await Promise.race(inFlight);
    else await sleep(Math.min(50, Math.max(1, (options.atMs[next] ?? 0) - elapsed)));
  }
  await Promise.all(inFlight);
  return { mentions: mentions.sort((a, b) => a.n - b.n), startedAt, endedAt: epochMs() };
}
