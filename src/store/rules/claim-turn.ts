import type { Turn } from '../records.js';

export type ClaimMode = 'start' | 'resume' | 'recover';

/** What the store knows, inside the claiming transaction, about the turn's surroundings. */
export interface ClaimFacts {
  readonly now: number;
  /** An earlier turn of the same conversation is unfinished, or another one is running or waiting. */
  readonly blockedByEarlier: boolean;
  /** Approvals of this turn still undecided. */
  readonly pendingApprovals: number;
  /** The caller established that this owner is gone (its process died): its lease may be taken early. */
  readonly takeOverFrom?: string;
}

export type ClaimDecision =
  | { readonly type: 'take'; readonly mode: ClaimMode }
  | { readonly type: 'refuse'; readonly reason: string };

type ClaimedFields = Pick<Turn, 'status' | 'leaseOwner' | 'leaseExpiresAt'>;

/**
 * The turn state machine's one entrance (DESIGN §3): who may take a turn, and as what. Pure, so every
 * store adapter applies the same rule inside its own transaction.
 */
export function decideClaim(turn: ClaimedFields, facts: ClaimFacts): ClaimDecision {
  switch (turn.status) {
    case 'queued':
      return facts.blockedByEarlier
        ? { type: 'refuse', reason: 'an earlier turn is unfinished' }
        : { type: 'take', mode: 'start' };
    case 'awaiting_approval':
      return facts.pendingApprovals > 0
        ? { type: 'refuse', reason: 'approvals still pending' }
        : { type: 'take', mode: 'resume' };
    case 'running': {
      if (leaseLapsed(turn, facts.now)) return { type: 'take', mode: 'recover' };
      if (facts.takeOverFrom !== undefined && turn.leaseOwner === facts.takeOverFrom)
        return { type: 'take', mode: 'recover' };
      return { type: 'refuse', reason: 'held by a live lease' };
    }
    case 'completed':
    case 'failed':
      return { type: 'refuse', reason: `turn is ${turn.status}` };
  }
}

/** A running turn nobody holds: no owner, no expiry, or an expiry in the past. */
export function leaseLapsed(turn: Pick<Turn, 'leaseOwner' | 'leaseExpiresAt'>, now: number): boolean {
  return turn.leaseOwner === null || turn.leaseExpiresAt === null || turn.leaseExpiresAt < now;
}
