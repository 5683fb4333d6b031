import { type ApproverDirectory, mayDecide } from '../../approvals/decide-approval.js';
import type { Policy } from '../../approvals/policy.js';
import type { Approval } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import type { SlackPort } from '../web-api/slack-port.js';

export interface VisibilityDeps {
  readonly store: Store;
  readonly policy: Policy;
  readonly directory: ApproverDirectory;
  readonly slack: SlackPort;
}

/**
 * Whether `viewer` is entitled to see a request (its command, arguments and outcome) in any list or
 * view: its requester, an approver of it (now, or the one who voted or decided), or a member of the
 * channel it came from. What was asked in a DM or group DM is for its requester and approvers only.
 */
export async function mayView(deps: VisibilityDeps, approval: Approval, viewer: string): Promise<boolean> {
  if (viewer === approval.requestedBy || viewer === approval.decidedBy) return true;
  if (approval.approvedBy.includes(viewer)) return true;
  if (await mayDecide(deps, approval, viewer)) return true;
  const conversation = await deps.store.conversations.get(approval.conversationId);
  const channelId = conversation?.channelId ?? approval.cards[0]?.channel;
  if (!channelId) return false;
  const audience = await deps.slack.conversationMembers(channelId);
  return audience.type === 'channel' && audience.members.has(viewer);
}

/** The requests of `approvals` that `viewer` may see, in the same order, stopping at `limit`. */
export async function visibleTo(
  deps: VisibilityDeps,
  approvals: readonly Approval[],
  viewer: string,
  limit = Number.POSITIVE_INFINITY,
): Promise<Approval[]> {
  const visible: Approval[] = [];
  for (const approval of approvals) {
    if (visible.length >= limit) break;
    if (await mayView(deps, approval, viewer)) visible.push(approval);
  }
  return visible;
}
