import type { NewOutboxEntry } from '../outbox-message.js';
import type { NewApproval } from '../ports/approval-store.js';
import type { ConversationKey } from '../ports/conversation-store.js';
import type { ToolCallRef } from '../ports/transcript-store.js';
import type { Fence } from '../ports/turn-claim.js';
import type { TurnFailure } from '../ports/turn-store.js';
import type { Approval, Conversation, Turn, TurnStatus } from '../records.js';
import { LeaseLostError } from '../store-errors.js';
import type { ChatMessage } from '../transcript-records.js';

/** Who holds a turn, as a transition reads it inside its transaction (under the thread's lock). */
export interface TurnHolder {
  readonly conversationId: string;
  readonly status: TurnStatus;
  readonly leaseOwner: string | null;
  readonly leaseToken: number;
}

/**
 * Invariant 6: a write made for a turn needs the claim it was made under to still hold the turn, so a
 * process that lost its lease can change nothing. Checked against the holder read in the same transaction.
 */
export function checkHolder(holder: TurnHolder | undefined, fence: Fence): TurnHolder {
  if (holder?.status !== 'running' || holder.leaseOwner !== fence.owner || holder.leaseToken !== fence.token)
    throw new LeaseLostError(fence.turnId);
  return holder;
}

/** What happens to the turn's own row. */
export type TurnChange =
  /** Taken by `owner`, guarded by the state the claim read: another claim that came first leaves it. */
  | {
      readonly type: 'take';
      readonly owner: string;
      readonly expiresAt: number;
      readonly from: { readonly status: TurnStatus; readonly leaseToken: number };
    }
  /** Ended or parked: the lease goes with it. */
  | {
      readonly type: 'end';
      readonly status: 'completed' | 'failed' | 'awaiting_approval';
      readonly error: TurnFailure | null;
    };

/** A new thread's row and its new turn's, for `enqueue`. */
export interface TurnInsert extends ConversationKey {
  readonly conversationId: string;
  readonly turnId: string;
  readonly triggerKey: string;
  readonly triggerTs: string;
  readonly requestedBy: string;
  readonly inputText: string;
}

/**
 * What one turn transition writes, in one transaction, in this order: the kept message settled, the new
 * turn inserted (a turn already made from the same message wins, and nothing after it is written), the
 * turn's row changed (a take whose guard no longer holds writes nothing after it), the transcript messages,
 * the requests created, the restarted call's ledger entry removed, the kv saved (on the thread, or
 * snapshotted on the turn's newest request), the ready mark, the outbox rows. A store applies it and
 * decides nothing; the fences of fenced transitions were checked by the plan against the holder it read.
 */
export interface TurnWrites {
  readonly turnId: string;
  readonly conversationId: string;
  readonly settleInbound?: string;
  readonly insert?: TurnInsert;
  readonly change?: TurnChange;
  readonly messages: readonly { readonly transcriptId: string; readonly message: ChatMessage }[];
  readonly approvals: readonly NewApproval[];
  /** A call that stopped to ask its requester: it starts again, from its start, once answered. */
  readonly forgetStart?: ToolCallRef;
  /** The thread's kv, as JSON. */
  readonly kv?: string;
  /** The turn's kv, as JSON, kept with its newest request (decided or not). */
  readonly kvSnapshot?: string;
  /** Marks the parked turn ready to resume when none of its requests is undecided. */
  readonly markReady: boolean;
  readonly outbox: readonly NewOutboxEntry[];
  /** What the requests as stored cause people to see (their cards). */
  readonly outboxFor?: (approvals: readonly Approval[]) => readonly NewOutboxEntry[];
  /** The turn left its holder for good: other processes are told the thread's next turn may start. */
  readonly finished: boolean;
}

/** A write set with nothing in it but the turn it is for. */
export function noWrites(turnId: string, conversationId: string): TurnWrites {
  return {
    turnId,
    conversationId,
    messages: [],
    approvals: [],
    markReady: false,
    outbox: [],
    finished: false,
  };
}

/** What applying a write set did, as every store's apply reports it. */
export type AppliedTurnWrites =
  /** The turn's row as the writes left it (when they changed it or inserted it) and the requests made. */
  | {
      readonly type: 'applied';
      readonly turn?: Turn;
      readonly conversation?: Conversation;
      readonly approvals: Approval[];
    }
  /** A turn was made from the same message already: nothing after the kept message was written. */
  | { readonly type: 'duplicate' }
  /** Another claim took the turn first: nothing was written. */
  | { readonly type: 'taken' };
