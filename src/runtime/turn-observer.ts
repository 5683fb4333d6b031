import type { TurnOutcome } from '../agent/turn-runner.js';
import type { Approval, Turn } from '../store/records.js';

/**
 * What the runtime tells the outside world (Slack, the local workspace) about turns. Implementations
 * must not throw for delivery problems they can retry later: the store already holds the truth, and the
 * sweep re-delivers what is missing (cards without `card_ts`, answers without `answer_posted_at`).
 */
export interface TurnObserver {
  turnStarting(turn: Turn): Promise<void>;
  turnSettled(outcome: TurnOutcome): Promise<void>;
  /** A pending approval whose card was never posted (crash between row and card). */
  approvalNeedsCard(approval: Approval): Promise<void>;
  /** The sweep expired it: rewrite its card. The turn is resumed separately. */
  approvalExpired(approval: Approval): Promise<void>;
  /** A completed turn whose answer never reached the thread. */
  answerNeedsDelivery(turn: Turn): Promise<void>;
}

export const silentObserver: TurnObserver = {
  async turnStarting() {},
  async turnSettled() {},
  async approvalNeedsCard() {},
  async approvalExpired() {},
  async answerNeedsDelivery() {},
};
