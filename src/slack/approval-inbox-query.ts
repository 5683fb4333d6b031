import { type ApproverDirectory, mayDecide } from '../approvals/decide-approval.js';
import type { Policy } from '../approvals/policy.js';
import type { Approval } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { ApprovalOutcome, ApprovalView } from './blocks/index.js';
import { outcomeOf, presentApproval } from './present-approval.js';
import type { SlackPort } from './slack-port.js';

export interface InboxDeps {
  readonly store: Store;
  readonly policy: Policy;
  readonly directory: ApproverDirectory;
  readonly slack: SlackPort;
}

/** Links are looked up for what is shown, not for everything pending. */
const shownAtMost = 20;

export async function pendingForViewer(
  deps: InboxDeps,
  query: { viewer: string; channelId?: string },
): Promise<{ views: ApprovalView[]; hidden: number }> {
  const pending = await deps.store.approvals.pending(query.channelId ? { channelId: query.channelId } : {});
  const visible: Approval[] = [];
  for (const approval of pending) {
    // In a channel everyone sees what waits there; across channels only what the viewer may decide.
    if (query.channelId || (await mayDecide(deps, approval, query.viewer))) visible.push(approval);
  }
  const shown = visible.slice(0, shownAtMost);
  return {
    views: await Promise.all(shown.map((approval) => view(deps, approval))),
    hidden: visible.length - shown.length,
  };
}

export async function recentDecisions(
  deps: InboxDeps,
  limit: number,
): Promise<Array<{ view: ApprovalView; outcome: ApprovalOutcome }>> {
  const decided = await deps.store.approvals.recentlyDecided(limit);
  const entries = await Promise.all(
    decided.map(async (approval) => {
      const outcome = outcomeOf(approval);
      return outcome ? { view: await view(deps, approval), outcome } : undefined;
    }),
  );
  return entries.filter((entry) => entry !== undefined);
}

async function view(deps: InboxDeps, approval: Approval): Promise<ApprovalView> {
  const conversation = await deps.store.conversations.get(approval.conversationId);
  const card = approval.cards[0];
  const channelId = conversation?.channelId ?? card?.channel ?? '';
  const threadLink = card ? await deps.slack.permalink(card.channel, card.ts) : undefined;
  return presentApproval(approval, { policy: deps.policy, channelId, threadLink });
}
