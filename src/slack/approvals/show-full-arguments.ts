import {
  bindingMismatch,
  type RefusalRecord,
  type RefusedClick,
  recordRefusal,
} from '../../approvals/decide-approval.js';
import type { Approval } from '../../store/records.js';
import { buildArgumentsModal } from '../blocks/index.js';
import { describeRefusal } from '../text/describe-refusal.js';
import {
  type ApprovalClick,
  alreadyDecided,
  type ClickDeps,
  replyPrivately,
  UNKNOWN_REQUEST_REPLY,
} from './handle-approval-click.js';
import { outcomeOf, presentApproval } from './present-approval.js';
import { mayView, type VisibilityDeps } from './record-visibility.js';

export type ShowArgumentsDeps = ClickDeps & Pick<VisibilityDeps, 'directory'>;

export interface ShowArgumentsClick extends Omit<ApprovalClick, 'action'> {
  /** From the click payload; `views.open` needs it within three seconds of the click. */
  readonly triggerId: string | undefined;
}

const NOT_ENTITLED_REPLY =
  'You cannot see this request: only its requester, its approvers and members of the channel it came ' +
  'from can. Nothing changed.';

/**
 * "View full arguments": checks the click the way a decision is checked (same request, same workspace
 * and card, same arguments) and that the clicker may see the request, then opens a modal with all of
 * the arguments and the decision buttons. Nothing is decided here; every refusal is on record.
 */
export async function showFullArguments(deps: ShowArgumentsDeps, click: ShowArgumentsClick): Promise<void> {
  const store = deps.runtime.store;
  const tell = (text: string) => replyPrivately(deps, click, text);
  const refused: RefusedClick = { ...click, action: 'view' };
  const refuse = async (reason: RefusalRecord, reply: string, approval?: Approval) => {
    await recordRefusal({ store, logger: deps.logger }, refused, reason, approval);
    await tell(reply);
  };

  const approval = await store.approvals.get(click.requestId);
  if (!approval) return refuse('unknown-request', UNKNOWN_REQUEST_REPLY);
  const mismatch = await bindingMismatch({ store, cards: deps.runtime.cards }, approval, {
    ...click,
    installationEnterpriseId: deps.installationEnterpriseId,
  });
  if (mismatch) return refuse(mismatch, describeRefusal(mismatch, approval), approval);
  const visibility = { store, policy: deps.runtime.policy, directory: deps.directory, slack: deps.slack };
  if (!(await mayView(visibility, approval, click.userId))) {
    return refuse('not-entitled', NOT_ENTITLED_REPLY, approval);
  }
  const decided = outcomeOf(approval);
  if (decided) return refuse('already-decided', alreadyDecided(decided), approval);
  if (!click.triggerId) {
    deps.logger.warn(
      { requestId: approval.requestId },
      'a View full arguments click came without a trigger id',
    );
    return tell('Slack did not say where to open the full arguments. Click *View full arguments* again.');
  }

  const conversation = await store.conversations.get(approval.conversationId);
  const view = presentApproval(approval, {
    policy: deps.runtime.policy,
    channelId: conversation?.channelId ?? approval.cards[0]?.channel ?? '',
  });
  try {
    await deps.slack.openView(click.triggerId, buildArgumentsModal(view, { replyTo: click.replyTo }));
  } catch (error) {
    // The trigger lasts three seconds; a slow moment is enough to lose it. Nothing was decided.
    deps.logger.warn({ err: error, requestId: approval.requestId }, 'could not open the full arguments');
    await tell('Slack did not open the full arguments in time. Click *View full arguments* again.');
  }
}
