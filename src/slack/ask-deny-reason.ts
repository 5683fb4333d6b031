import type { ApproverDirectory } from '../approvals/decide-approval.js';
import { bindingMismatch, refusalFor } from '../approvals/decide-approval.js';
import { buildDenyReasonModal } from './blocks/index.js';
import { type ClickDeps, handleApprovalClick, replyPrivately } from './handle-approval-click.js';
import type { DecisionModalMetadata } from './payloads.js';
import { presentApproval } from './present-approval.js';
import type { ApprovalButtonClick } from './read-approval-click.js';

export interface AskDenyReasonDeps extends ClickDeps {
  readonly directory: ApproverDirectory;
}

/**
 * A click on Deny opens the reason modal when the click could deny the request now; any other click (a
 * decided request, a forged or foreign one, someone who may not decide it) goes the ordinary way, which
 * changes nothing and tells the clicker why. The submission is checked again in full when it comes.
 */
export async function askDenyReason(
  deps: AskDenyReasonDeps,
  click: ApprovalButtonClick,
): Promise<'asked' | 'answered'> {
  const store = deps.runtime.store;
  const decideNow = async () => {
    await handleApprovalClick(deps, { ...click, action: 'deny' });
    return 'answered' as const;
  };
  const approval = await store.approvals.get(click.requestId);
  if (!approval || approval.decision !== null || !click.triggerId) return decideNow();
  const mismatch = await bindingMismatch({ store }, approval, {
    ...click,
    installationEnterpriseId: deps.installationEnterpriseId,
  });
  if (mismatch) return decideNow();
  const refusal = await refusalFor(
    { policy: deps.runtime.policy, directory: deps.directory },
    approval,
    click.userId,
    'deny',
  );
  if (refusal) return decideNow();

  const conversation = await store.conversations.get(approval.conversationId);
  const view = presentApproval(approval, {
    policy: deps.runtime.policy,
    channelId: conversation?.channelId ?? approval.cards[0]?.channel ?? '',
  });
  const metadata: DecisionModalMetadata = {
    requestId: approval.requestId,
    ...(click.argsFingerprint ? { argsFingerprint: click.argsFingerprint } : {}),
    origin: click.origin,
    ...(click.replyTo ? { replyTo: click.replyTo } : {}),
    ...(click.viewType === 'home' ? { fromHome: true } : {}),
  };
  try {
    await deps.slack.openView(click.triggerId, buildDenyReasonModal(view, JSON.stringify(metadata)));
    return 'asked';
  } catch (error) {
    // The trigger lasts three seconds; a slow moment is enough to lose it. Nothing was decided.
    deps.logger.warn({ err: error, requestId: approval.requestId }, 'could not open the deny form');
    await replyPrivately(
      deps,
      click,
      'Slack did not open the deny form in time, so nothing changed. Click *Deny* again.',
    );
    return 'answered';
  }
}
