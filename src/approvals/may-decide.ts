import { isQuestion } from '../agent/person-question.js';
import type { Approval } from '../store/records.js';
import type { DecideApprovalDeps } from './decide-approval-deps.js';
import type { DecisionAction } from './decision-request.js';
import { approversFor } from './policy-lookup.js';
import type { RefusalReason } from './refusal-reason.js';

/** Why this user may not take `action` on the request, or undefined when they may; the click re-checks. */
export async function refusalFor(
  deps: Pick<DecideApprovalDeps, 'policy' | 'directory'>,
  approval: Approval,
  userId: string,
  action: DecisionAction,
): Promise<RefusalReason | undefined> {
  // A running call's question is its requester's to answer or decline, and nobody else's.
  // (Never "Always allow": an answer is not a grant.)
  if (isQuestion(approval))
    return userId === approval.requestedBy && action !== 'always' ? undefined : 'not-asked';
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
  return (await refusalFor(deps, approval, userId, 'allow')) === undefined;
}
