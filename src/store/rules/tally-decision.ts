import type { ApprovalDecision } from '../records.js';

/** Whether a click may still decide a request: it may be decided already, or overdue. */
export type RequestGate =
  | { readonly type: 'already-decided' }
  | { readonly type: 'expire' }
  | { readonly type: 'open' };

/**
 * The first half of a decision, before any vote is counted: a decided request stays as it is, and an
 * overdue one expires at click time (a click on the last millisecond's card is late).
 */
export function gateDecision(
  request: { readonly decision: ApprovalDecision | null; readonly expiresAt: number },
  now: number,
): RequestGate {
  if (request.decision !== null) return { type: 'already-decided' };
  if (now >= request.expiresAt) return { type: 'expire' };
  return { type: 'open' };
}

export type Tally =
  | { readonly type: 'already-voted' }
  | { readonly type: 'vote-recorded'; readonly votes: number; readonly remaining: number }
  | { readonly type: 'decide'; readonly decision: 'allowed' | 'denied'; readonly always: boolean };

/**
 * The second half, once the click's vote (for an approval) is stored: one denial decides; an approval
 * decides once the quorum is reached, and a person's second approval counts once.
 */
export function tallyDecision(
  input: { readonly decision: 'allowed' | 'denied'; readonly always?: boolean },
  votes: { readonly counted: boolean; readonly total: number; readonly required: number },
): Tally {
  if (input.decision === 'denied') return { type: 'decide', decision: 'denied', always: false };
  if (votes.total < votes.required) {
    if (!votes.counted) return { type: 'already-voted' };
    return { type: 'vote-recorded', votes: votes.total, remaining: votes.required - votes.total };
  }
  return { type: 'decide', decision: 'allowed', always: input.always === true };
}
