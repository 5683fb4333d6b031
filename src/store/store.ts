import type { ApprovalStore } from './ports/approval-store.js';
import type { AuditStore } from './ports/audit-store.js';
import type { ConversationStore } from './ports/conversation-store.js';
import type { GrantStore } from './ports/grant-store.js';
import type { InboundStore } from './ports/inbound-store.js';
import type { LiveMessageStore } from './ports/live-message-store.js';
import type { OutboxStore } from './ports/outbox-store.js';
import type { TranscriptStore } from './ports/transcript-store.js';
import type { TurnStore } from './ports/turn-store.js';
import type { WorkNotices } from './ports/work-notices.js';

// The port is split by part in ports/; this file stays the one place importers take it from.
export type {
  ApprovalStore,
  CreateApprovalResult,
  DecisionInput,
  NewApproval,
  PendingFilter,
  RebindResult,
  ResolveOptions,
  ResolveResult,
} from './ports/approval-store.js';
export type { AuditFilter, AuditStore, NewAuditEvent } from './ports/audit-store.js';
export type { ConversationKey, ConversationStore } from './ports/conversation-store.js';
export type { GrantFilter, GrantScopes, GrantStore, GrantUse, NewGrant } from './ports/grant-store.js';
export type { InboundMessage, InboundStore, NewInboundMessage } from './ports/inbound-store.js';
export type { LiveMessage, LiveMessageStore } from './ports/live-message-store.js';
export type { ClaimToken, CompletedDelivery, Effects, OutboxStore } from './ports/outbox-store.js';
export type { ToolCallRef, ToolStartResult, TranscriptStore } from './ports/transcript-store.js';
export type { ClaimedTurn, ClaimOptions, ClaimResult, Fence, Lease } from './ports/turn-claim.js';
export type {
  EnqueueResult,
  NewTurn,
  RecoverableTurns,
  SuspendBatch,
  TurnFailure,
  TurnStore,
} from './ports/turn-store.js';
export type { WorkNotice, WorkNotices } from './ports/work-notices.js';

/**
 * Everything holdfast keeps. Each method that writes is one atomic transaction; callers never compose
 * transactions, which is what lets a PostgreSQL implementation slot in behind the same interface.
 * Methods are async for that reason; on SQLite each write is a transaction of its own, and its promise
 * resolves once the commit is on disk (`synchronous=FULL`).
 */
export interface Store {
  readonly conversations: ConversationStore;
  readonly turns: TurnStore;
  readonly transcript: TranscriptStore;
  readonly approvals: ApprovalStore;
  readonly grants: GrantStore;
  readonly audit: AuditStore;
  readonly outbox: OutboxStore;
  /** Messages acknowledged and not yet turns. */
  readonly inbound: InboundStore;
  /** The live messages of running turns, so a process that takes a turn over finds its message. */
  readonly liveMessages: LiveMessageStore;
  /**
   * Tells this process, as it happens, about work another process gave back. Only a store shared by
   * several processes on several machines has it; the periodic sweep remains the guarantee either way.
   */
  readonly notices?: WorkNotices;
  /**
   * Work waiting across every process that shares the database, for metrics; cheap enough to double as
   * the readiness probe's query.
   */
  waiting(): Promise<WaitingWork>;
  /**
   * A fault only a restart clears, once it has happened: a write that failed on disk (see
   * `writesStopped`), after which nothing more is written. The process is then no longer alive in any
   * useful sense, and says so on `/health`.
   */
  fault?(): Error | undefined;
  /** A store with a connection pool finishes closing asynchronously; await it where that matters. */
  close(): void | Promise<void>;
}

export interface WaitingWork {
  /** Requests not decided yet. */
  readonly pendingApprovals: number;
  /** Outbox rows not sent (or given up on) yet. */
  readonly pendingDeliveries: number;
  /** Turns queued and not started. */
  readonly queuedTurns: number;
}
