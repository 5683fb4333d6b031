import type { ChatMessage } from '../agent/chat-model.js';
import type { KvSnapshot } from '../agent/kv.js';
import type { DeliveryProgress, NewOutboxEntry, OutboxEntry } from '../outbox/outbox-message.js';
import type {
  Approval,
  AuditEvent,
  AuditKind,
  Conversation,
  Grant,
  GrantScope,
  StoredMessage,
  Turn,
} from './records.js';
import type { AdmissionLimits } from './rules/admit-turn.js';
import type { ArgumentsEdit } from './rules/edit-arguments.js';

/**
 * Everything holdfast keeps. Each method that writes is one atomic transaction; callers never compose
 * transactions, which is what lets a PostgreSQL implementation slot in behind the same interface.
 * Methods are async for that reason, though the SQLite implementation completes synchronously.
 */
export interface Store {
  readonly conversations: ConversationStore;
  readonly turns: TurnStore;
  readonly transcript: TranscriptStore;
  readonly approvals: ApprovalStore;
  readonly grants: GrantStore;
  readonly audit: AuditStore;
  readonly outbox: OutboxStore;
  /**
   * Tells this process, as it happens, about work another process gave back. Only a store shared by
   * several processes on several machines has it; the periodic sweep remains the guarantee either way.
   */
  readonly liveMessages: LiveMessageStore;
  readonly notices?: WorkNotices;
  /**
   * Work waiting across every process that shares the database, for metrics; cheap enough to double as
   * the readiness probe's query.
   */
  waiting(): Promise<WaitingWork>;
  /** A store with a connection pool finishes closing asynchronously; await it where that matters. */
  close(): void | Promise<void>;
}

export interface WorkNotice {
  readonly conversationId: string;
  readonly turnId: string;
  /** `released`: given back unfinished (a replica shut down); `finished`: completed or failed. */
  readonly event: 'released' | 'finished';
}

export interface WorkNotices {
  /** Calls `listener` for each notice until the returned function is called. */
  subscribe(listener: (notice: WorkNotice) => void): () => void;
}

export interface WaitingWork {
  /** Requests not decided yet. */
  readonly pendingApprovals: number;
  /** Outbox rows not sent (or given up on) yet. */
  readonly pendingDeliveries: number;
  /** Turns queued and not started. */
  readonly queuedTurns: number;
}

/**
 * The message a running turn is showing its progress in (a Slack stream, or a message kept up to date),
 * remembered so that the turn's answer replaces it instead of arriving as a second message, and so that a
 * process recovering the turn after a crash can close the one the dead process left open. Decoration, so
 * not fenced: the last writer wins.
 */
export interface LiveMessageStore {
  /** Remembers (or replaces) the live message of a turn. */
  record(turnId: string, message: LiveMessage): Promise<void>;
  get(turnId: string): Promise<LiveMessage | undefined>;
  /** The turn's answer has taken the message over (or it was closed): nothing is left to finish. */
  forget(turnId: string): Promise<void>;
}

export interface LiveMessage {
  readonly channel: string;
  readonly ts: string;
  /** `stream`: opened with `chat.startStream`, open until stopped; `message`: a post kept up to date. */
  readonly kind: 'stream' | 'message';
  /** The process that opened it: another one finding it open knows its owner is gone or gave it up. */
  readonly owner: string;
}

export interface ConversationKey {
  readonly teamId: string;
  readonly channelId: string;
  readonly threadTs: string;
}

export interface ConversationStore {
  get(id: string): Promise<Conversation | undefined>;
  saveKv(id: string, kv: KvSnapshot): Promise<void>;
}

export interface NewTurn extends ConversationKey {
  readonly turnId: string;
  readonly triggerKey: string;
  readonly triggerTs: string;
  readonly requestedBy: string;
  readonly inputText: string;
}

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

export type EnqueueResult =
  | {
      readonly type: 'enqueued';
      readonly turn: Turn;
      readonly conversation: Conversation;
      /** Set when a lease was offered and the conversation was idle: the turn is already running. */
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'duplicate'; readonly turn: Turn }
  /** Too much unfinished work in the thread or by the person: nothing was written. */
  | { readonly type: 'refused'; readonly reason: 'thread-busy' | 'user-busy'; readonly unfinished: number };

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
       * A resume claim marks the approved call the turn runs first as started in its own commit (the
       * at-most-once ledger): the runner runs it without writing the marker again. Anyone else who finds
       * the marker treats it as a start whose outcome is unknown.
       */
      readonly startedCall?: { readonly transcriptId: string; readonly toolCallId: string };
    }
  | { readonly type: 'not-claimable'; readonly reason: string; readonly turn?: Turn };

export interface ClaimOptions {
  /**
   * Take the turn from this owner even though its lease has not lapsed yet: the caller has established
   * that the owner is gone (a dead process on this host).
   */
  readonly takeOverFrom?: string;
}

/** Outbox rows a state change writes, claimed in the same commit for the process that will send them. */
export interface Effects {
  readonly outbox?: readonly NewOutboxEntry[];
  /** The sender's claim on those rows; without it they wait for any worker's sweep. */
  readonly deliverAs?: Lease;
}

export interface TurnStore {
  /**
   * Creates the conversation if needed and queues the turn; a repeated trigger key is a duplicate. With a
   * lease, a turn that could start now is claimed in the same transaction. With limits, a thread or a
   * person with too much unfinished work is refused (see `admitTurn`), atomically with the count.
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
  fail(
    target: Fence | { turnId: string },
    error: { code: string; message: string },
    effects?: Effects,
  ): Promise<void>;
  /**
   * Gives a running turn back (shutdown): the lease lapses now so the next sweep or boot re-runs it. A
   * fence that no longer holds the turn releases nothing, and that is not an error: the turn is not ours.
   */
  release(fence: Fence): Promise<void>;
  /** The oldest queued turn of a conversation, if no earlier turn is still unfinished. */
  nextRunnable(conversationId: string): Promise<Turn | undefined>;
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
  /** What the stored rows cause people to see (their cards), written in the same commit. */
  readonly outboxFor?: (approvals: readonly Approval[]) => readonly NewOutboxEntry[];
}

export interface RecoverableTurns {
  readonly queued: readonly Turn[];
  /** Every running turn; which of them are stale is the caller's rule (lease lapsed, owner gone). */
  readonly running: readonly Turn[];
  readonly decidedAwaiting: readonly Turn[];
}

export type ToolStartResult =
  | { readonly type: 'started' }
  /** A previous attempt started the tool and never recorded a result: its outcome is unknown. */
  | { readonly type: 'previously-started'; readonly startedAt: number };

export interface TranscriptStore {
  /** The transcript in order, as the model will see it. */
  messages(transcriptId: string): Promise<StoredMessage[]>;
  /**
   * The newest part of a transcript, in order: at least `maxChars` of content (or all of it), starting at
   * a user message so no exchange is cut, and always the last message. What a turn reads once, so its
   * cost follows what the model can be sent, not the thread's length.
   */
  recent(transcriptId: string, options: { maxChars: number }): Promise<ChatMessage[]>;
  append(fence: Fence, transcriptId: string, message: ChatMessage): Promise<StoredMessage>;
  /** Marks a call as running; the ledger that keeps side effects at most once across crashes. */
  startTool(
    fence: Fence,
    call: ToolCallRef & { toolName: string; argsHash: string },
  ): Promise<ToolStartResult>;
  /**
   * Records the tool message and closes the ledger entry in one transaction. A second result for the
   * same call is ignored (returns false): the first one stands.
   */
  recordToolResult(fence: Fence, call: ToolCallRef, content: string): Promise<boolean>;
  /** Answer of the turn: its last assistant message without tool calls. */
  finalAnswer(turnId: string): Promise<string | undefined>;
  /** What a turn has spent so far, in every transcript it wrote to: model replies and tool results. */
  turnUsage(turnId: string): Promise<{ modelCalls: number; toolCalls: number }>;
}

export interface ToolCallRef {
  readonly conversationId: string;
  readonly transcriptId: string;
  readonly turnId: string;
  readonly toolCallId: string;
}

export interface NewApproval extends ToolCallRef {
  readonly requestId: string;
  readonly toolName: string;
  readonly permissionType: string;
  readonly summary: string;
  readonly arguments: unknown;
  readonly argsHash: string;
  readonly reason: string | null;
  readonly requestedBy: string;
  readonly requiredApprovals: number;
  readonly expiresAt: number;
}

export type CreateApprovalResult =
  | { readonly type: 'created'; readonly approval: Approval }
  | { readonly type: 'exists'; readonly approval: Approval };

export interface DecisionInput {
  readonly requestId: string;
  readonly decision: 'allowed' | 'denied';
  readonly decidedBy: string;
  /** Always allow this tool in the conversation: recorded as `allowed` plus a grant row. */
  readonly always?: boolean;
  /** What the person deciding said (why they denied it); kept with the decision and audited. */
  readonly reason?: string;
  /**
   * With `always`: what the grant covers. Absent, it is the whole tool in the request's conversation,
   * until revoked.
   */
  readonly grant?: Omit<NewGrant, 'toolName' | 'createdBy' | 'sourceRequestId'>;
  /**
   * With `allowed`: the decider edited the arguments first. The row takes the edited arguments and hash
   * (the proposal is kept), every earlier vote is dropped since it was for other arguments, and the
   * decider's approval is the first vote for the edited ones; all in the decision's commit.
   */
  readonly edit?: ArgumentsEdit;
}

export interface ResolveOptions {
  /** Offered so the decision that completes a turn's approvals also claims the turn for resume. */
  readonly lease?: Lease;
  /**
   * The card that was clicked, when its ts is not recorded yet (the post landed but the process died
   * before recording it): it becomes one of the request's cards in the decision's commit.
   */
  readonly card?: { readonly channel: string; readonly ts: string };
  /** Who sends the card rewrites this decision writes to the outbox. */
  readonly deliverAs?: Lease;
}

export type ResolveResult =
  | {
      readonly type: 'decided';
      readonly approval: Approval;
      readonly turnReady: boolean;
      /** Set when a lease was offered and this decision was the turn's last: it is claimed for resume. */
      readonly claim?: ClaimedTurn;
    }
  /** Quorum not reached yet: the vote is counted, the request stays pending. */
  | { readonly type: 'vote-recorded'; readonly approval: Approval; readonly remaining: number }
  | { readonly type: 'already-voted'; readonly approval: Approval }
  | { readonly type: 'already-decided'; readonly approval: Approval }
  | {
      readonly type: 'expired';
      readonly approval: Approval;
      readonly turnReady: boolean;
      readonly claim?: ClaimedTurn;
    }
  /** An edit made on arguments the request no longer holds (someone else edited first): nothing changed. */
  | { readonly type: 'arguments-changed'; readonly approval: Approval }
  | { readonly type: 'unknown' };

export interface PendingFilter {
  readonly channelId?: string;
  readonly conversationId?: string;
  readonly limit?: number;
}

export interface ApprovalStore {
  /** Inserts the pending row; an existing row for the same call is returned untouched. */
  create(fence: Fence, approval: NewApproval): Promise<CreateApprovalResult>;
  get(requestId: string): Promise<Approval | undefined>;
  forCall(transcriptId: string, toolCallId: string): Promise<Approval | undefined>;
  /**
   * The compare-and-set: only a pending, unexpired row changes. An overdue row is expired on the spot
   * and reported as such; decision, grant, audit event and card rewrites commit together.
   */
  resolve(input: DecisionInput, options?: ResolveOptions): Promise<ResolveResult>;
  /**
   * Marks overdue pending rows `expired` (at most `limit`, oldest first), with their audit events and
   * card rewrites; returns those rows.
   */
  expireOverdue(limit?: number): Promise<Approval[]>;
  pending(filter?: PendingFilter): Promise<Approval[]>;
  recentlyDecided(limit: number): Promise<Approval[]>;
  forTurn(turnId: string): Promise<Approval[]>;
}

export interface NewGrant {
  readonly scope: GrantScope;
  readonly scopeId: string;
  readonly toolName: string;
  readonly createdBy: string;
  readonly sourceRequestId?: string;
  /** Argument name → glob; absent covers every call of the tool. */
  readonly match?: Readonly<Record<string, string>>;
  /** A grant of one exact call: the hash of its arguments. */
  readonly argsHash?: string;
  readonly expiresAt?: number;
  /** How many calls it may let through; absent for no limit. */
  readonly maxUses?: number;
}

export interface GrantScopes {
  readonly conversationId: string;
  readonly channelId: string;
}

/** A call running under a grant, for the audit row. */
export interface GrantUse {
  readonly conversationId: string;
  readonly turnId: string;
  readonly toolCallId: string;
}

export interface GrantFilter {
  readonly conversationId?: string;
  readonly channelId?: string;
  /** Grants of the channel and of every thread in it. */
  readonly inChannel?: string;
  readonly createdBy?: string;
}

export interface GrantStore {
  /**
   * A usable grant of the whole tool (no pattern) in the conversation or its channel: not revoked, not
   * expired, not used up.
   */
  find(toolName: string, scopes: GrantScopes): Promise<Grant | undefined>;
  /** Every usable grant of the tool in the conversation or its channel, patterns included, oldest first. */
  usable(toolName: string, scopes: GrantScopes): Promise<Grant[]>;
  /**
   * Lets one call through under the grant: counts a use down, audits `grant.used` and writes `effects`
   * (the notice in the thread) in one commit. Undefined, and nothing written, when the grant is no longer
   * usable (revoked, expired or used up in the meantime).
   */
  use(id: number, use: GrantUse, effects?: Effects): Promise<Grant | undefined>;
  /** A new grant; an identical one still standing (same scope, tool and pattern) is returned instead. */
  create(grant: NewGrant): Promise<Grant>;
  revoke(id: number, by: string): Promise<boolean>;
  get(id: number): Promise<Grant | undefined>;
  /** Usable grants matching every filter given; no filter lists nothing. */
  list(filter: GrantFilter): Promise<Grant[]>;
}

export interface NewAuditEvent {
  readonly actor: string;
  readonly kind: AuditKind;
  readonly approvalId?: string | null;
  readonly conversationId?: string | null;
  readonly data?: Record<string, unknown>;
}

export interface AuditFilter {
  readonly approvalId?: string;
  readonly conversationId?: string;
  /** Only rows with a larger id: pages through the whole trail (export, verify). */
  readonly afterId?: number;
  /** Only rows recorded at or after this time (epoch ms). */
  readonly since?: number;
  readonly limit?: number;
}

/**
 * The audit trail. Every adapter chains rows as it inserts them, in the same transaction and one writer
 * at a time: `previousHash` is the hash of the row with the next lower id, `hash` is `auditRowHash`
 * (rules/audit-chain.ts) over the row and `previousHash`.
 */
export interface AuditStore {
  record(event: NewAuditEvent): Promise<void>;
  /** Oldest first. */
  list(filter?: AuditFilter): Promise<AuditEvent[]>;
}

export interface OutboxStore {
  /** Rows written on their own (not as part of a turn's state change), e.g. a notice to a requester. */
  enqueue(entries: readonly NewOutboxEntry[], deliverAs?: Lease): Promise<OutboxEntry[]>;
  get(id: number): Promise<OutboxEntry | undefined>;
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
   * A row delivered, recorded without a commit of its own: with the next commit this process makes, or
   * within a few milliseconds. Resolves once it is recorded (false: the claim is no longer ours). If the
   * process dies first, the row's claim lapses and the sweep reconciles it: nothing is posted twice.
   */
  completeSoon(delivery: CompletedDelivery): Promise<boolean>;
  /**
   * Hands the row back to be tried again at `nextAttemptAt`; its claim ends. `inDoubt`: the part being
   * sent may have landed all the same, so the next attempt looks for it first.
   */
  retryLater(
    id: number,
    claim: ClaimToken,
    retry: { nextAttemptAt: number; error: string; inDoubt?: boolean },
  ): Promise<boolean>;
  /**
   * The row can never be delivered: it is marked failed, an audit event says why, and `notify` (a notice
   * to a person) is written in the same commit.
   */
  giveUp(
    id: number,
    claim: ClaimToken,
    failure: { error: string; notify?: readonly NewOutboxEntry[] },
    deliverAs?: Lease,
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
