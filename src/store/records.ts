import type { KvSnapshot } from './kv-snapshot.js';
import type { RequestDetails } from './rows/approval-details.js';
import type { ChatMessage } from './transcript-records.js';

export type { RequestDetails };

/** One Slack thread. `id` is `team:channel:thread_ts`. */
export interface Conversation {
  readonly id: string;
  readonly teamId: string;
  readonly channelId: string;
  readonly threadTs: string;
  readonly kv: KvSnapshot;
  readonly createdAt: number;
}

const turnStatuses = ['queued', 'running', 'awaiting_approval', 'completed', 'failed'] as const;
export type TurnStatus = (typeof turnStatuses)[number];

/** One user message that starts work. */
export interface Turn {
  readonly id: string;
  readonly seq: number;
  readonly conversationId: string;
  readonly status: TurnStatus;
  /** Dedupe key of the Slack message that started it (`channel:ts`). */
  readonly triggerKey: string;
  /** Slack ts of that message: where status reactions go. */
  readonly triggerTs: string;
  readonly requestedBy: string;
  readonly inputText: string;
  readonly leaseOwner: string | null;
  readonly leaseExpiresAt: number | null;
  /** Fencing token of the latest claim. */
  readonly leaseToken: number;
  readonly attempts: number;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  /** The person who pressed Stop, when that is how the turn ended. */
  readonly stoppedBy: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A transcript row: the chat-completions message plus where it sits. */
export interface StoredMessage {
  readonly seq: number;
  readonly transcriptId: string;
  readonly turnId: string;
  readonly message: ChatMessage;
}

export type ApprovalDecision = 'allowed' | 'denied' | 'expired';

/** A request for a person's decision: its columns, and its `RequestDetails` (see `rows/approval-details.ts`). */
export interface Approval extends RequestDetails {
  /** Opaque, 128+ random bits; the only thing a Slack button carries. */
  readonly requestId: string;
  readonly conversationId: string;
  /** The transcript the call sits in: the conversation id, or a nested agent's transcript. */
  readonly transcriptId: string;
  readonly toolCallId: string;
  readonly turnId: string;
  readonly toolName: string;
  readonly permissionType: string;
  readonly summary: string;
  readonly argsHash: string;
  readonly reason: string | null;
  readonly requestedBy: string;
  readonly requiredApprovals: number;
  readonly approvedBy: readonly string[];
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly resolvedAt: number | null;
  readonly decision: ApprovalDecision | null;
  readonly decidedBy: string | null;
  /** What the person who decided said (a denial's reason), as they wrote it. */
  readonly decisionReason: string | null;
  readonly always: boolean;
  /** Every message that carries this request's buttons, oldest first; a click on any of them decides it. */
  readonly cards: readonly ApprovalCard[];
  /**
   * Set once an approver edited the arguments: `arguments` and `argsHash` are then the edited ones (what
   * is decided and what runs), and the model's proposal is kept here.
   */
  readonly edit: ApprovalEdit | null;
}

/** An approver's edit of a request's arguments before it was decided. */
export interface ApprovalEdit {
  /** The arguments as the model proposed them, before the first edit. */
  readonly proposedArguments: unknown;
  readonly proposedArgsHash: string;
  /** The exact text the call runs with: its hash is the request's `argsHash`. */
  readonly argumentsText: string;
  /** Who edited last, and when. */
  readonly by: string;
  readonly at: number;
  /** How many edits the request has had; each one starts the quorum over. */
  readonly count: number;
}

export interface ApprovalCard {
  readonly channel: string;
  readonly ts: string;
}

export type GrantScope = 'conversation' | 'channel';

export interface Grant {
  readonly id: number;
  readonly scope: GrantScope;
  readonly scopeId: string;
  readonly toolName: string;
  readonly createdBy: string;
  readonly createdAt: number;
  readonly sourceRequestId: string | null;
  /** Argument name → glob the argument must match (see `grantCovers`); null covers every call of the tool. */
  readonly match: Readonly<Record<string, string>> | null;
  /** Set for a grant of one exact call: only calls with these arguments (by hash) are covered. */
  readonly argsHash: string | null;
  /** Null: until revoked. */
  readonly expiresAt: number | null;
  /** Calls it may still let through; null: no limit. */
  readonly usesLeft: number | null;
}

export type AuditKind =
  | 'approval.requested'
  | 'approval.allowed'
  | 'approval.denied'
  | 'approval.expired'
  | 'approval.vote'
  | 'approval.edited'
  | 'approval.refused'
  | 'grant.created'
  | 'grant.revoked'
  | 'grant.used'
  | 'tool.allowed_by_policy'
  | 'tool.denied_by_policy'
  | 'tool.started'
  | 'tool.finished'
  | 'tool.interrupted'
  | 'tool.asked_requester'
  | 'approval.rebound'
  | 'tool.refused'
  | 'turn.failed'
  | 'turn.stopped'
  | 'turn.refused'
  | 'turn.budget_exhausted'
  | 'turn.taken_over'
  | 'delivery.failed';

export interface AuditEvent {
  readonly id: number;
  readonly at: number;
  readonly actor: string;
  readonly kind: AuditKind;
  readonly approvalId: string | null;
  readonly conversationId: string | null;
  readonly data: Record<string, unknown>;
  /** The hash of the row before this one (null for the first row); see rules/audit-chain.ts. */
  readonly previousHash: string | null;
  /** This row's hash over its fields and `previousHash`, written in the transaction that inserted it. */
  readonly hash: string;
}
