import type { ApproverDirectory } from '../../approvals/decide-approval.js';
import { bindingMismatch, refusalFor } from '../../approvals/decide-approval.js';
import { proposeGrantPattern } from '../../approvals/grant-covers.js';
import type { Redact } from '../../secrets/index.js';
import {
  buildDenyReasonModal,
  buildEditArgumentsModal,
  buildGrantModal,
  buildQuestionModal,
  questionFields,
} from '../blocks/index.js';
import type { DecisionModalMetadata } from '../payloads.js';
import { EDIT_FIELD_ACTION_ID, editFields } from './edit-fields.js';
import { type ClickDeps, handleApprovalClick, replyPrivately } from './handle-approval-click.js';
import { presentApproval, presentQuestion } from './present-approval.js';
import type { ApprovalButtonClick } from './read-approval-click.js';

export interface AskDecisionFormDeps extends ClickDeps {
  readonly directory: ApproverDirectory;
  /** Keeps secrets in the arguments out of the edit form. */
  readonly redact: Redact;
}

export type FormAction = 'deny' | 'always' | 'edit';

/**
 * Deny, Always allow and Edit ask before they decide: Deny for an optional reason, Always allow for what
 * the grant covers, Edit for the arguments to allow instead. The form opens only when the click could decide the request now; any other click (a
 * decided request, a forged or foreign one, someone who may not decide it) goes the ordinary way, which
 * changes nothing and tells the clicker why. The submission is checked again in full when it comes.
 */
export async function askDecisionForm(
  deps: AskDecisionFormDeps,
  click: ApprovalButtonClick,
  action: FormAction,
): Promise<'asked' | 'answered'> {
  const store = deps.runtime.store;
  // An edit that cannot be asked about is refused exactly as an Allow click would be.
  const decision = action === 'edit' ? 'allow' : action;
  const decideNow = async () => {
    await handleApprovalClick(deps, { ...click, action: decision });
    return 'answered' as const;
  };
  const approval = await store.approvals.get(click.requestId);
  if (!approval || approval.decision !== null || !click.triggerId) return decideNow();
  const mismatch = await bindingMismatch({ store, cards: deps.runtime.cards }, approval, {
    ...click,
    installationEnterpriseId: deps.installationEnterpriseId,
  });
  if (mismatch) return decideNow();
  const refusal = await refusalFor(
    { policy: deps.runtime.policy, directory: deps.directory },
    approval,
    click.userId,
    decision,
  );
  if (refusal) return decideNow();
  // A question asks for its answer in a form of its own; declining it needs no reason.
  const question = presentQuestion(approval);
  if (question && action !== 'edit') return decideNow();
  const questionForm =
    question?.question.kind === 'form' ? questionFields(question.question) : question ? [] : undefined;
  if (question && !questionForm) {
    await replyPrivately(
      deps,
      click,
      'This question asks for more than a Slack form can hold, so it cannot be answered here. Decline it, and the call is told so.',
    );
    return 'answered';
  }
  const fields = action === 'edit' && !question ? editFields(approval.arguments, deps.redact) : undefined;
  if (action === 'edit' && !question && !fields) {
    await replyPrivately(
      deps,
      click,
      'These arguments are too long or too many to edit in Slack, so nothing changed. Allow or deny the call as it is.',
    );
    return 'answered';
  }

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
  const proposed = action === 'always' ? proposeGrantPattern(recordOf(approval.arguments)) : undefined;
  const modal = question
    ? buildQuestionModal(question, questionForm ?? [], JSON.stringify(metadata))
    : action === 'deny'
      ? buildDenyReasonModal(view, JSON.stringify(metadata))
      : action === 'edit'
        ? buildEditArgumentsModal(view, fields ?? [], {
            metadata: JSON.stringify(metadata),
            actionId: EDIT_FIELD_ACTION_ID,
          })
        : buildGrantModal(view, {
            proposed,
            metadata: JSON.stringify({ ...metadata, ...(proposed ? { argument: proposed.argument } : {}) }),
          });
  try {
    // From inside a modal (the full arguments) the form goes on top of it, so closing it goes back there.
    if (click.viewType === 'modal') await deps.slack.pushView(click.triggerId, modal);
    else await deps.slack.openView(click.triggerId, modal);
    return 'asked';
  } catch (error) {
    // The trigger lasts three seconds; a slow moment is enough to lose it. Nothing was decided.
    deps.logger.warn({ err: error, requestId: approval.requestId, action }, 'could not open a decision form');
    const button = action === 'deny' ? 'Deny' : action === 'edit' ? 'Edit…' : 'Always allow';
    await replyPrivately(
      deps,
      click,
      `Slack did not open the form in time, so nothing changed. Click *${button}* again.`,
    );
    return 'answered';
  }
}

function recordOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
