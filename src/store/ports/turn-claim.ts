import type { Conversation, Turn } from '../records.js';

export type ClaimedTurn = Extract<ClaimResult, { type: 'claimed' }>;

/**
 * Proof that a process holds a turn: the owner and the claim's token. Every write made for a turn carries
 * it and is refused (LeaseLostError) once another claim has taken the turn, so a process that lost its
 * lease can change nothing (invariant 6).
 */
export interface Fence {
  readonly turnId: string;
  readonly owner: string;
  readonly token: number;
}

export interface Lease {
  readonly owner: string;
  readonly durationMs: number;
}

export type ClaimResult =
  | {
      readonly type: 'claimed';
      readonly turn: Turn;
      readonly mode: 'start' | 'resume' | 'recover';
      readonly fence: Fence;
      /**
       * The turn's conversation as the claim's own commit read it, when it had reason to (a new turn is
       * claimed as its conversation is written): the runner reads it otherwise.
       */
      readonly conversation?: Conversation;
    }
  | { readonly type: 'not-claimable'; readonly reason: string; readonly turn?: Turn };

export interface ClaimOptions {
  /**
   * Take the turn from this owner even though its lease has not lapsed yet: the caller has established
   * that the owner is gone (a dead process on this host).
   */
  readonly takeOverFrom?: string;
}
