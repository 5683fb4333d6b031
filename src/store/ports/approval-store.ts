import type { Approval, RequestDetails } from '../records.js';
import type { ArgumentsEdit } from '../rules/edit-arguments.js';
import type { RebindInput } from '../rules/plan-decision.js';
import type { NewGrant } from './grant-store.js';
import type { ToolCallRef } from './transcript-store.js';
import type { ClaimedTurn, Lease } from './turn-claim.js';

/**
 * What is known of a request when it is made: the call it is for, its `RequestDetails`, and the columns of
 * `Approval` set then.
 */
export interface NewApproval
  extends ToolCallRef,
    RequestDetails,
    Pick<
      Approval,
      | 'requestId'
      | 'toolName'
      | 'permissionType'
      | 'summary'
      | 'argsHash'
      | 'reason'
      | 'requestedBy'
      | 'requiredApprovals'
      | 'expiresAt'
    > {}

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

export type RebindResult =
  | { readonly type: 'rebound'; readonly approval: Approval }
  | { readonly type: 'unchanged'; readonly approval: Approval | undefined };

export interface PendingFilter {
  readonly channelId?: string;
  readonly conversationId?: string;
  readonly limit?: number;
}

export interface ApprovalStore {
  get(requestId: string): Promise<Approval | undefined>;
  forCall(transcriptId: string, toolCallId: string): Promise<Approval | undefined>;
  /**
   * The compare-and-set: only a pending, unexpired row changes. An overdue row is expired on the spot
   * and reported as such; decision, grant, audit event and card rewrites commit together.
   */
  resolve(input: DecisionInput, options?: ResolveOptions): Promise<ResolveResult>;
  /**
   * Binds a pending request to its tool's new definition (see `planRebind`): the votes go, a note and a
   * new card are written, the old cards rewritten, all in one commit; a fence that no longer holds
   * (decided, expired, bound again already) changes nothing.
   */
  rebind(input: RebindInput): Promise<RebindResult>;
  /**
   * Marks overdue pending rows `expired` (at most `limit`, oldest first), with their audit events and
   * card rewrites; returns those rows.
   */
  expireOverdue(limit?: number): Promise<Approval[]>;
  pending(filter?: PendingFilter): Promise<Approval[]>;
  recentlyDecided(limit: number): Promise<Approval[]>;
  forTurn(turnId: string): Promise<Approval[]>;
}
