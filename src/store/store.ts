import type { ChatMessage } from '../agent/chat-model.js';
import type { KvSnapshot } from '../agent/kv.js';
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
  readonly deliveries: DeliveryStore;
  close(): void;
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

export type EnqueueResult =
  | {
      readonly type: 'enqueued';
      readonly turn: Turn;
      readonly conversation: Conversation;
      /** Set when a lease was offered and the conversation was idle: the turn is already running. */
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'duplicate'; readonly turn: Turn };

export interface Lease {
  readonly owner: string;
  readonly durationMs: number;
}

export type ClaimResult =
  | { readonly type: 'claimed'; readonly turn: Turn; readonly mode: 'start' | 'resume' | 'recover' }
  | { readonly type: 'not-claimable'; readonly reason: string; readonly turn?: Turn };

export interface TurnStore {
  /**
   * Creates the conversation if needed and queues the turn; a repeated trigger key is a duplicate. With a
   * lease, a turn that could start now is claimed in the same transaction.
   */
  enqueue(turn: NewTurn, lease?: Lease): Promise<EnqueueResult>;
  get(id: string): Promise<Turn | undefined>;
  /**
   * Takes the turn for this process. A queued turn starts (its user message joins the transcript in the
   * same transaction) only when it is the oldest unfinished turn of its conversation; a turn awaiting
   * approval resumes only when every approval is decided; a running turn whose lease lapsed is
   * recovered.
   */
  claim(turnId: string, lease: Lease): Promise<ClaimResult>;
  /** Extends a held lease; false when the lease is no longer ours (another process took over). */
  renewLease(turnId: string, lease: Lease): Promise<boolean>;
  /** Ends a running turn: answer in the transcript, kv saved on the conversation, status completed. */
  complete(turnId: string, owner: string, answer: string, kv: KvSnapshot): Promise<void>;
  /** Parks the turn: kv snapshot on the approval row and status awaiting_approval, lease released. */
  suspend(turnId: string, owner: string, requestId: string, kv: KvSnapshot): Promise<void>;
  fail(turnId: string, owner: string | null, error: { code: string; message: string }): Promise<void>;
  /** Gives a running turn back (shutdown): the lease lapses now so the next sweep or boot re-runs it. */
  release(turnId: string, owner: string): Promise<void>;
  markAnswerPosted(turnId: string): Promise<void>;
  /** The oldest queued turn of a conversation, if no earlier turn is still unfinished. */
  nextRunnable(conversationId: string): Promise<Turn | undefined>;
  /** Turns a boot or sweep must pick up (see DESIGN §4). */
  recoverable(): Promise<RecoverableTurns>;
  /** kv to restore when resuming: the snapshot stored with the turn's latest approval. */
  resumeKv(turnId: string): Promise<KvSnapshot | undefined>;
}

export interface RecoverableTurns {
  readonly queued: readonly Turn[];
  readonly staleRunning: readonly Turn[];
  readonly decidedAwaiting: readonly Turn[];
  readonly unpostedAnswers: readonly Turn[];
}

export type ToolStartResult =
  | { readonly type: 'started' }
  /** A previous attempt started the tool and never recorded a result: its outcome is unknown. */
  | { readonly type: 'previously-started'; readonly startedAt: number };

export interface TranscriptStore {
  /** The transcript in order, as the model will see it. */
  messages(transcriptId: string): Promise<StoredMessage[]>;
  append(transcriptId: string, turnId: string, message: ChatMessage): Promise<StoredMessage>;
  /** Marks a call as running; the ledger that keeps side effects at most once across crashes. */
  startTool(call: ToolCallRef & { toolName: string; argsHash: string }): Promise<ToolStartResult>;
  /**
   * Records the tool message and closes the ledger entry in one transaction. A second result for the
   * same call is ignored (returns false): the first one stands.
   */
  recordToolResult(call: ToolCallRef, content: string): Promise<boolean>;
  /** Answer of the turn: its last assistant message without tool calls. */
  finalAnswer(turnId: string): Promise<string | undefined>;
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
  | { readonly type: 'unknown' };

export interface PendingFilter {
  readonly channelId?: string;
  readonly conversationId?: string;
  readonly limit?: number;
}

export interface ApprovalStore {
  /** Inserts the pending row; an existing row for the same call is returned untouched. */
  create(approval: NewApproval): Promise<CreateApprovalResult>;
  get(requestId: string): Promise<Approval | undefined>;
  forCall(transcriptId: string, toolCallId: string): Promise<Approval | undefined>;
  /**
   * The compare-and-set: only a pending, unexpired row changes. An overdue row is expired on the spot
   * and reported as such; decision, grant and audit event commit together.
   */
  resolve(input: DecisionInput, lease?: Lease): Promise<ResolveResult>;
  attachCard(requestId: string, channel: string, ts: string): Promise<void>;
  /** Marks every overdue pending row `expired`; returns those rows. */
  expireOverdue(): Promise<Approval[]>;
  pending(filter?: PendingFilter): Promise<Approval[]>;
  recentlyDecided(limit: number): Promise<Approval[]>;
  withoutCard(): Promise<Approval[]>;
  forTurn(turnId: string): Promise<Approval[]>;
}

export interface NewGrant {
  readonly scope: GrantScope;
  readonly scopeId: string;
  readonly toolName: string;
  readonly createdBy: string;
  readonly sourceRequestId?: string;
}

export interface GrantStore {
  /** An active grant for this tool in the conversation or its channel. */
  find(toolName: string, scopes: { conversationId: string; channelId: string }): Promise<Grant | undefined>;
  create(grant: NewGrant): Promise<Grant>;
  revoke(id: number, by: string): Promise<boolean>;
  list(scopes: { conversationId?: string; channelId?: string }): Promise<Grant[]>;
}

export interface NewAuditEvent {
  readonly actor: string;
  readonly kind: AuditKind;
  readonly approvalId?: string | null;
  readonly conversationId?: string | null;
  readonly data?: Record<string, unknown>;
}

export interface AuditStore {
  record(event: NewAuditEvent): Promise<void>;
  list(filter?: { approvalId?: string; conversationId?: string; limit?: number }): Promise<AuditEvent[]>;
}

export interface DeliveryStore {
  /**
   * Remembers a Slack delivery under all its keys (event id, channel:ts). True when none was seen
   * before: Slack delivers at least once, and one post arrives as a message/app_mention pair.
   */
  firstSighting(keys: readonly string[]): Promise<boolean>;
  /** Forgets deliveries older than the cut-off. */
  prune(olderThan: number): Promise<number>;
}
