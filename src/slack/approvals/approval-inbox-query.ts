import type { EffectsOf } from '../../agent/tool.js';
import { mayDecide, refusalFor } from '../../approvals/decide-approval.js';
import type { Approval } from '../../store/records.js';
import type { ApprovalOutcome, ApprovalView, ViewerMay } from '../blocks/index.js';
import { outcomeOf, presentApproval } from './present-approval.js';
import { type VisibilityDeps, visibleTo } from './record-visibility.js';

export interface InboxDeps extends VisibilityDeps {
  /** Where calls run, by tool, for what the cards say; left out when absent. */
  readonly effectsOf?: EffectsOf;
}

/** Links are looked up for what is shown, not for everything pending. */
const shownAtMost = 20;
/**
 * How many of the latest decisions, workspace-wide, are sifted for the ones a viewer may see. The store
 * has no per-viewer query yet, so someone whose requests are all older than this sees fewer of them.
 */
const recentScanned = 200;

/**
 * Pending requests for one viewer. In a channel: what waits there, for someone entitled to see it (its
 * requester, an approver, a member of that channel). Across channels: only what the viewer may decide.
 */
export async function pendingForViewer(
  deps: InboxDeps,
  query: { viewer: string; channelId?: string },
): Promise<{ views: ApprovalView[]; hidden: number }> {
  const pending = await deps.store.approvals.pending(query.channelId ? { channelId: query.channelId } : {});
  const visible = query.channelId
    ? await visibleTo(deps, pending, query.viewer)
    : await decidableBy(deps, pending, query.viewer);
  const powers = await Promise.all(visible.map((approval) => viewerMayOf(deps, approval, query.viewer)));
  // What waits on the viewer comes first, so the links looked up are spent on what they can decide.
  const ranked = visible
    .map((approval, i) => ({ approval, may: powers[i] ?? 'watch' }))
    .sort((a, b) => Number(b.may === 'decide') - Number(a.may === 'decide'));
  const shown = ranked.slice(0, shownAtMost);
  return {
    views: await Promise.all(shown.map(({ approval, may }) => view(deps, approval, may))),
    hidden: visible.length - shown.length,
  };
}

/** The latest decisions the viewer is entitled to see, newest first. */
export async function recentDecisions(
  deps: InboxDeps,
  query: { viewer: string; limit: number },
): Promise<Array<{ view: ApprovalView; outcome: ApprovalOutcome }>> {
  const decided = await deps.store.approvals.recentlyDecided(recentScanned);
  const visible = await visibleTo(deps, decided, query.viewer, query.limit);
  const entries = await Promise.all(
    visible.map(async (approval) => {
      const outcome = outcomeOf(approval);
      return outcome ? { view: await view(deps, approval), outcome } : undefined;
    }),
  );
  return entries.filter((entry) => entry !== undefined);
}

async function decidableBy(deps: InboxDeps, approvals: readonly Approval[], viewer: string) {
  const decidable: Approval[] = [];
  for (const approval of approvals) {
    if (await mayDecide(deps, approval, viewer)) decidable.push(approval);
  }
  return decidable;
}

/**
 * Which buttons a view made for `viewer` shows, by the same check that refuses a click: all of them to
 * someone who may allow, Deny alone to a requester who may only withdraw, none to anyone else.
 */
async function viewerMayOf(
  deps: Pick<InboxDeps, 'policy' | 'directory'>,
  approval: Approval,
  viewer: string,
): Promise<ViewerMay> {
  if ((await refusalFor(deps, approval, viewer, 'allow')) === undefined) return 'decide';
  if ((await refusalFor(deps, approval, viewer, 'deny')) === undefined) return 'withdraw';
  return 'watch';
}

async function view(deps: InboxDeps, approval: Approval, viewerMay?: ViewerMay): Promise<ApprovalView> {
  const conversation = await deps.store.conversations.get(approval.conversationId);
  const card = approval.cards[0];
  const channelId = conversation?.channelId ?? card?.channel ?? '';
  const threadLink = card ? await deps.slack.permalink(card.channel, card.ts) : undefined;
  return presentApproval(approval, {
    policy: deps.policy,
    channelId,
    threadLink,
    effectsOf: deps.effectsOf,
    viewerMay,
  });
}
