import type { App } from '@slack/bolt';
import type { Redact } from '../../secrets/index.js';
import {
  DENY_REASON_ACTION_ID,
  DENY_REASON_BLOCK_ID,
  DENY_REASON_CALLBACK_ID,
  DENY_REASON_MAX,
  GRANT_CALLBACK_ID,
} from '../blocks/index.js';
import { type ClickDeps, handleApprovalClick } from '../handle-approval-click.js';
import { viewSubmissionSchema } from '../payloads.js';
import { readDecisionModal } from '../read-decision-modal.js';
import { readGrantForm } from '../read-grant-form.js';

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
  const refreshHome = (userId: string) =>
    deps.refreshHome(userId).catch((error: unknown) => {
      deps.logger.warn({ err: error }, 'could not refresh App Home after a decision');
    });
  app.view(DENY_REASON_CALLBACK_ID, async ({ ack, body }) => {
    await ack();
    const parsed = viewSubmissionSchema.safeParse(body);
    const submission = parsed.success ? readDecisionModal(parsed.data) : undefined;
    if (!submission) {
      deps.logger.warn('ignoring a deny form that holdfast did not open');
      return;
    }
    const said = submission.text(DENY_REASON_BLOCK_ID, DENY_REASON_ACTION_ID);
    // A secret pasted into the reason would reach the card, the audit table and the model.
    const reason = said === undefined ? undefined : deps.redact(said).slice(0, DENY_REASON_MAX);
    const { metadata } = submission;
    await handleApprovalClick(deps, {
      requestId: metadata.requestId,
      action: 'deny',
      userId: submission.userId,
      teamId: submission.teamId,
      origin: submission.origin,
      argsFingerprint: metadata.argsFingerprint,
      replyTo: metadata.replyTo?.channel
        ? { channel: metadata.replyTo.channel, threadTs: metadata.replyTo.threadTs }
        : undefined,
      ...(reason ? { reason } : {}),
    });
    if (metadata.fromHome) await refreshHome(submission.userId);
  });

  app.view(GRANT_CALLBACK_ID, async ({ ack, body }) => {
    const parsed = viewSubmissionSchema.safeParse(body);
    const submission = parsed.success ? readDecisionModal(parsed.data) : undefined;
    if (!submission) {
      await ack();
      deps.logger.warn('ignoring a grant form that holdfast did not open');
      return;
    }
    const { metadata } = submission;
    const click = {
      requestId: metadata.requestId,
      action: 'always' as const,
      userId: submission.userId,
      teamId: submission.teamId,
      origin: submission.origin,
      argsFingerprint: metadata.argsFingerprint,
      replyTo: metadata.replyTo?.channel
        ? { channel: metadata.replyTo.channel, threadTs: metadata.replyTo.threadTs }
        : undefined,
    };
    const store = deps.runtime.store;
    const approval = await store.approvals.get(metadata.requestId);
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
    if (metadata.fromHome) await refreshHome(submission.userId);
  });
}
