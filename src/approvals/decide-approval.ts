import type { Logger } from 'pino';
import type { Approval } from '../store/records.js';
import type { ClaimedTurn, Lease, Store } from '../store/store.js';
import type { Policy } from './policy.js';
import { approversFor } from './policy-lookup.js';

/** Who is in a user group; Slack's `usergroups.users.list` behind a cache, in production. */
export interface ApproverDirectory {
  groupMembers(groupId: string): Promise<readonly string[]>;
}

export type DecisionAction = 'allow' | 'deny' | 'always';

/** Where the click came from, as Slack reported it; checked against the row. */
export type DecisionOrigin =
  | { readonly type: 'card'; readonly teamId: string; readonly channelId: string; readonly messageTs: string }
  | { readonly type: 'inbox'; readonly teamId: string };

export interface DecisionRequest {
  readonly requestId: string;
  readonly userId: string;
  readonly action: DecisionAction;
  readonly origin: DecisionOrigin;
}

export type RefusalReason = 'not-approver' | 'self-approval' | 'no-approvers' | 'origin-mismatch';

export type DecisionOutcome =
  | {
      readonly type: 'decided';
      readonly approval: Approval;
      readonly turnReady: boolean;
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'vote-recorded'; readonly approval: Approval; readonly remaining: number }
  | { readonly type: 'already-voted'; readonly approval: Approval }
  | { readonly type: 'already-decided'; readonly approval: Approval }
  | {
      readonly type: 'expired';
      readonly approval: Approval;
      readonly turnReady: boolean;
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'refused'; readonly reason: RefusalReason; readonly approval: Approval }
  | { readonly type: 'unknown' };

export interface DecideApprovalDeps {
  readonly store: Store;
  readonly policy: Policy;
  readonly directory: ApproverDirectory;
  readonly logger: Logger;
}

/**
 * A human's click, start to end: the request must exist, come from where its card is, and the clicker
 * must be allowed to decide it; then the store's compare-and-set decides it once (invariant 7).
 */
export async function decideApproval(
  deps: DecideApprovalDeps,
  request: DecisionRequest,
  options: {
    /** Offered so the decision that completes a turn's approvals also claims the turn for resume. */
    readonly lease?: Lease;
    /** Who sends the card rewrites the decision writes. */
    readonly deliverAs?: Lease;
  } = {},
): Promise<DecisionOutcome> {
  const approval = await deps.store.approvals.get(request.requestId);
  if (!approval) return { type: 'unknown' };
  const conversation = await deps.store.conversations.get(approval.conversationId);
  const refusal =
    originMismatch(approval, conversation?.teamId, request.origin) ??
    (await authorize(deps, approval, request.userId, request.action));
  if (refusal) {
    // A decided request reports that fact even to someone who could not have decided it.
    if (approval.decision !== null) return { type: 'already-decided', approval };
    await deps.store.audit.record({
      actor: request.userId,
      kind: 'approval.refused',
      approvalId: approval.requestId,
      conversationId: approval.conversationId,
      data: { reason: refusal, action: request.action, origin: request.origin },
    });
    deps.logger.warn(
      { requestId: approval.requestId, user: request.userId, reason: refusal },
      'decision refused',
    );
    return { type: 'refused', reason: refusal, approval };
  }
  const origin = request.origin;
  const newCard =
    origin.type === 'card' && !isRecordedCard(approval, origin.channelId, origin.messageTs)
      ? { channel: origin.channelId, ts: origin.messageTs }
      : undefined;
  return deps.store.approvals.resolve(
    {
      requestId: request.requestId,
      decision: request.action === 'deny' ? 'denied' : 'allowed',
      decidedBy: request.userId,
      always: request.action === 'always',
    },
    { lease: options.lease, deliverAs: options.deliverAs, card: newCard },
  );
}

function isRecordedCard(approval: Approval, channel: string, ts: string): boolean {
  return approval.cards.some((card) => card.channel === channel && card.ts === ts);
}

function originMismatch(
  approval: Approval,
  teamId: string | undefined,
  origin: DecisionOrigin,
): RefusalReason | undefined {
  if (teamId !== undefined && origin.teamId !== teamId) return 'origin-mismatch';
  if (origin.type === 'inbox') return undefined;
  // Every recorded card of the request decides it. A message in a channel where no card is recorded yet
  // is one whose post landed but whose ts was never stored (a crash): it becomes a card on this click.
  // A real request id on any other message in a channel that has its cards is a forgery.
  if (isRecordedCard(approval, origin.channelId, origin.messageTs)) return undefined;
  if (approval.cards.some((card) => card.channel === origin.channelId)) return 'origin-mismatch';
  return undefined;
}

async function authorize(
  deps: Pick<DecideApprovalDeps, 'policy' | 'directory'>,
  approval: Approval,
  userId: string,
  action: DecisionAction,
): Promise<RefusalReason | undefined> {
  // The requester may always withdraw their own request; approving it needs explicit permission.
  if (userId === approval.requestedBy) {
    if (action === 'deny') return undefined;
    if (!deps.policy.approvers.allowSelfApproval) return 'self-approval';
  }
  const approvers = approversFor(deps.policy, approval.toolName, approval.permissionType);
  if (approvers.users.length === 0 && approvers.groups.length === 0) return 'no-approvers';
  if (approvers.users.includes(userId)) return undefined;
  for (const group of approvers.groups) {
    if ((await deps.directory.groupMembers(group)).includes(userId)) return undefined;
  }
  return 'not-approver';
}

/** Whether this user could decide this approval now (for inboxes); the click path re-checks. */
export async function mayDecide(
  deps: Pick<DecideApprovalDeps, 'policy' | 'directory'>,
  approval: Approval,
  userId: string,
): Promise<boolean> {
  return (await authorize(deps, approval, userId, 'allow')) === undefined;
}

export function describeRefusal(reason: RefusalReason, approval: Approval): string {
  switch (reason) {
    case 'not-approver':
      return `You are not an approver for \`${approval.toolName}\`. Ask someone on the approver list to decide it.`;
    case 'self-approval':
      return 'You asked for this call, so you cannot approve it yourself. Another approver has to decide.';
    case 'no-approvers':
      return `No approvers are configured for \`${approval.toolName}\`. Set HOLDFAST_APPROVERS or the policy file.`;
    case 'origin-mismatch':
      return 'This button does not belong to that approval request, so nothing was changed.';
  }
}
