import type { App } from '@slack/bolt';
import type { Redact } from '../../secrets/index.js';
import { type ClickDeps, handleApprovalClick } from '../approvals/handle-approval-click.js';
import { readGrantForm } from '../approvals/read-grant-form.js';
import {
  DENY_REASON_ACTION_ID,
  DENY_REASON_BLOCK_ID,
  DENY_REASON_CALLBACK_ID,
  DENY_REASON_MAX,
  GRANT_CALLBACK_ID,
} from '../blocks/index.js';
import { clickOf, readDecisionForm, refreshHomeAfterDecision } from './decision-form.js';

export interface DecisionModalDeps extends Omit<ClickDeps, 'respond'> {
  readonly redact: Redact;
  /** Rebuilds the App Home of someone who decided from it. */
  readonly refreshHome: (userId: string) => Promise<void>;
  readonly now: () => number;
}

/**
 * Submissions of the decision modals. Each is acknowledged first (closing the modal), then decided exactly
 * as a click on the card would be: the same checks, the same compare-and-set, the same private replies.
 */
export function registerDecisionModalListener(app: App, deps: DecisionModalDeps): void {
  app.view(DENY_REASON_CALLBACK_ID, async ({ ack, body }) => {
    await ack();
    const submission = readDecisionForm(body, deps.logger, 'a deny form');
    if (!submission) return;
    const said = submission.text(DENY_REASON_BLOCK_ID, DENY_REASON_ACTION_ID);
    // A secret pasted into the reason would reach the card, the audit table and the model.
    const reason = said === undefined ? undefined : deps.redact(said).slice(0, DENY_REASON_MAX);
    await handleApprovalClick(deps, { ...clickOf(submission, 'deny'), ...(reason ? { reason } : {}) });
    await refreshHomeAfterDecision(deps, submission);
  });

  app.view(GRANT_CALLBACK_ID, async ({ ack, body }) => {
    const submission = readDecisionForm(body, deps.logger, 'a grant form');
    if (!submission) {
      await ack();
      return;
    }
    const click = clickOf(submission, 'always');
    const store = deps.runtime.store;
    const approval = await store.approvals.get(click.requestId);
    if (!approval) {
      await ack();
      await handleApprovalClick(deps, click);
      return;
    }
    const conversation = await store.conversations.get(approval.conversationId);
    const form = readGrantForm(submission, approval, conversation?.channelId ?? '', deps.now());
    // A pattern that would not cover this call (or allows anything) is sent back to be fixed, in the form.
    if (form.type === 'errors') {
      await ack({ response_action: 'errors', errors: form.errors });
      return;
    }
    await ack();
    await handleApprovalClick(deps, { ...click, grant: form.grant });
    await refreshHomeAfterDecision(deps, submission);
  });
}
