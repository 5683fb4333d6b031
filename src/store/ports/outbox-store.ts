import type { DeliveryProgress, NewOutboxEntry, OutboxEntry } from '../outbox-message.js';
import type { Lease } from './turn-claim.js';

/**
 * Outbox rows a state change writes in its own commit. They are written unclaimed: the writing process's
 * worker is kicked once the commit is made (or any worker's sweep finds them) and claims them like any row.
 */
export interface Effects {
  readonly outbox?: readonly NewOutboxEntry[];
}

export interface OutboxStore {
  /**
   * Tells `listener` the conversation of each row this process writes, the moment its commit is made, so
   * the worker is kicked for every write, not only those followed by an explicit kick. Optional: the
   * kick after each state change, and the sweep, deliver the rows without it.
   */
  listen?(listener: (conversationId: string) => void): void;
  /** Rows written on their own (not as part of a turn's state change), e.g. a notice to a requester. */
  enqueue(entries: readonly NewOutboxEntry[]): Promise<OutboxEntry[]>;
  /**
   * The oldest pending row of a conversation (after row `afterId`, when given): rows of one thread are
   * delivered in order.
   */
  nextPending(conversationId: string, afterId?: number): Promise<OutboxEntry | undefined>;
  /** Pending rows that are due and not held by a live claim (a lapsed claim counts as free), for the sweep. */
  duePending(limit: number): Promise<OutboxEntry[]>;
  /**
   * Pending rows held by a claim that has not lapsed, for the sweep to find the ones whose owner is gone
   * (a process that died on this host) and take them at once instead of waiting out the claim.
   */
  heldPending(limit: number): Promise<OutboxEntry[]>;
  /**
   * Claims a row for sending: only a pending row whose claim is absent, lapsed, or held by
   * `takeOverFrom`. Taking over a claim that never recorded an outcome marks the row in doubt.
   */
  claim(id: number, lease: Lease, options?: { takeOverFrom?: string }): Promise<OutboxEntry | undefined>;
  /**
   * Records progress (a part sent) and extends the claim by `extendByMs`, so a long answer keeps it;
   * false when the claim is no longer ours.
   */
  recordProgress(
    id: number,
    claim: ClaimToken,
    progress: DeliveryProgress,
    extendByMs: number,
  ): Promise<boolean>;
  /**
   * Rows delivered, all in one commit. For an approval card, the parts' messages become cards of the
   * request in the same commit. One result per row: false where the claim is no longer ours.
   */
  complete(deliveries: readonly CompletedDelivery[]): Promise<boolean[]>;
  /**
   * Hands the row back to be tried again at `nextAttemptAt`; its claim ends. `inDoubt`: the part being
   * sent may have landed all the same, so the next attempt looks for it first. `waited`: Slack only asked
   * to wait (a 429, or a method paused by one), so this attempt does not count towards giving up.
   */
  retryLater(
    id: number,
    claim: ClaimToken,
    retry: { nextAttemptAt: number; error: string; inDoubt?: boolean; waited?: boolean },
  ): Promise<boolean>;
  /**
   * The row can never be delivered: it is marked failed, an audit event says why, and `notify` (a notice
   * to a person) is written in the same commit.
   */
  giveUp(
    id: number,
    claim: ClaimToken,
    failure: { error: string; notify?: readonly NewOutboxEntry[] },
  ): Promise<boolean>;
}

export interface CompletedDelivery {
  readonly id: number;
  readonly claim: ClaimToken;
  readonly progress: DeliveryProgress;
}

export interface ClaimToken {
  readonly owner: string;
  readonly token: number;
}
