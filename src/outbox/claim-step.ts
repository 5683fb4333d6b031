import type { OutboxEntry } from '../store/outbox-message.js';

/** How soon a row another process holds is looked at again. */
const othersRecheckMs = 250;

/** How this process comes to hold a due row, read from the claim on it. */
export type ClaimStep =
  /** Another live process holds it: look again at `at`. */
  | { readonly type: 'wait'; readonly at: number }
  /** Claim it now, taking it over from `takeOverFrom` when that claim is still running. */
  | { readonly type: 'claim'; readonly takeOverFrom: string | undefined };

export function claimStep(
  entry: OutboxEntry,
  now: number,
  identity: { readonly owner: string; ownerGone(owner: string): boolean },
): ClaimStep {
  const claim = entry.claim;
  if (claim && claim.expiresAt >= now && claim.owner !== identity.owner && !identity.ownerGone(claim.owner)) {
    // Another live process is sending it, or has sent it and records that with its next commit: look
    // again shortly rather than at the end of its claim, so this thread's later rows are not held up.
    return { type: 'wait', at: Math.min(claim.expiresAt + 1, now + othersRecheckMs) };
  }
  if (claim && claim.expiresAt >= now && claim.owner === identity.owner) {
    // Our own attempt ended without its outcome on record (a storage fault), or a drain here
    // finds a row it holds but is not sending: nothing of it is still in flight (this process sends one
    // row of a thread at a time), so take it again now, in doubt, rather than wait for the claim to lapse.
    return { type: 'claim', takeOverFrom: identity.owner };
  }
  return { type: 'claim', takeOverFrom: claim && identity.ownerGone(claim.owner) ? claim.owner : undefined };
}
