import type { KvSnapshot } from '../kv-snapshot.js';
import type { NewOutboxEntry } from '../outbox-message.js';
import type { Approval, Conversation, Turn } from '../records.js';
import type { AdmissionLimits } from '../rules/admit-turn.js';
import type { ChatMessage } from '../transcript-records.js';
import type { NewApproval } from './approval-store.js';
import type { ConversationKey } from './conversation-store.js';
import type { Effects } from './outbox-store.js';
import type { ToolCallRef } from './transcript-store.js';
import type { ClaimedTurn, ClaimOptions, ClaimResult, Fence, Lease } from './turn-claim.js';

/** How a turn failed; `stoppedBy` when a person stopped it (kept as data for every process to read). */
export interface TurnFailure {
  readonly code: string;
  readonly message: string;
  readonly stoppedBy?: string;
}

export interface NewTurn extends ConversationKey {
  readonly turnId: string;
  readonly triggerKey: string;
  readonly triggerTs: string;
  readonly requestedBy: string;
  readonly inputText: string;
  /**
   * The kept message this turn is made from (see `InboundStore`): it leaves the store in the same commit,
   * whatever the outcome (a turn, a duplicate, a refusal), so it is never made into a turn twice.
   */
  readonly inboundKey?: string;
}

export type EnqueueResult =
  | {
      readonly type: 'enqueued';
      readonly turn: Turn;
      readonly conversation: Conversation;
      /** Set when a lease was offered and the conversation was idle: the turn is already running. */
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'duplicate'; readonly turn: Turn }
  /** Too much unfinished work in the thread or by the person: nothing was written but the settled message. */
  | { readonly type: 'refused'; readonly reason: 'thread-busy' | 'user-busy'; readonly unfinished: number };

export interface TurnStore {
  /**
   * Creates the conversation if needed and queues the turn; a repeated trigger key is a duplicate. With a
   * lease, a turn that could start now is claimed in the same transaction. With limits, a thread or a
   * person with too much unfinished work is refused (see `admitTurn`), atomically with the count.
   *
   * The promise resolves once the turn is on disk: what acknowledges a message waits for it.
   */
  enqueue(turn: NewTurn, lease?: Lease, limits?: AdmissionLimits): Promise<EnqueueResult>;
  get(id: string): Promise<Turn | undefined>;
  /**
   * Takes the turn for this process. A queued turn starts (its user message joins the transcript in the
   * same transaction) only when it is the oldest unfinished turn of its conversation; a turn awaiting
   * approval resumes only when every approval is decided; a running turn is recovered once its lease
   * lapsed or its owner is known to be gone.
   */
  claim(turnId: string, lease: Lease, options?: ClaimOptions): Promise<ClaimResult>;
  /** Extends a held lease; false when the lease is no longer ours (another process took over). */
  renewLease(fence: Fence, durationMs: number): Promise<boolean>;
  /** Ends a running turn: answer in the transcript, kv saved on the conversation, status completed. */
  complete(fence: Fence, result: { answer: string; kv: KvSnapshot }, effects?: Effects): Promise<void>;
  /**
   * Parks the turn: kv snapshot on its newest approval, status awaiting_approval, lease released. With a
   * batch, the assistant message and every pending row of its calls are written in the same commit
   * (invariant 1 holds: nothing of the batch has run). The cards go out in the same commit too, so nobody
   * sees a card for a turn that is still running. Returns the batch's approvals as stored.
   */
  suspend(fence: Fence, kv: KvSnapshot, effects?: Effects, batch?: SuspendBatch): Promise<Approval[]>;
  /** Ends the turn as failed; with no fence, whatever state it is in (an operator's or a sweep's call). */
  fail(target: Fence | { turnId: string }, error: TurnFailure, effects?: Effects): Promise<void>;
  /**
   * Gives a running turn back (shutdown): the lease lapses now so the next sweep or boot re-runs it. A
   * fence that no longer holds the turn releases nothing, and that is not an error: the turn is not ours.
   */
  release(fence: Fence): Promise<void>;
  /** The oldest queued turn of a conversation, if no earlier turn is still unfinished. */
  nextRunnable(conversationId: string): Promise<Turn | undefined>;
  /** A conversation's unfinished turns (queued, running, awaiting approval), oldest first: what Stop ends. */
  open(conversationId: string): Promise<Turn[]>;
  /** Turns a boot or sweep must look at (see DESIGN §4); indexed on what is open, never on history. */
  recoverable(): Promise<RecoverableTurns>;
  /** kv to restore when resuming: the snapshot stored with the turn's latest approval. */
  resumeKv(turnId: string): Promise<KvSnapshot | undefined>;
}

/** An assistant message whose calls need people: written whole, with its pending rows, when it suspends. */
export interface SuspendBatch {
  readonly transcriptId: string;
  /** The assistant message, when it is not on disk yet (a fresh reply). */
  readonly message?: ChatMessage;
  readonly approvals: readonly NewApproval[];
  /**
   * A call that stopped to ask its requester a question: its ledger entry is removed in the same commit,
   * so on resume it starts again (and finds the answer) rather than count as interrupted.
   */
  readonly restartCall?: ToolCallRef;
  /** What the stored rows cause people to see (their cards), written in the same commit. */
  readonly outboxFor?: (approvals: readonly Approval[]) => readonly NewOutboxEntry[];
}

export interface RecoverableTurns {
  readonly queued: readonly Turn[];
  /** Every running turn; which of them are stale is the caller's rule (lease lapsed, owner gone). */
  readonly running: readonly Turn[];
  readonly decidedAwaiting: readonly Turn[];
}
