import type { App } from '@slack/bolt';
import type { Redact } from '../../secrets/index.js';
import {
  DENY_REASON_ACTION_ID,
  DENY_REASON_BLOCK_ID,
  DENY_REASON_CALLBACK_ID,
  DENY_REASON_MAX,
} from '../blocks/index.js';
import { type ClickDeps, handleApprovalClick } from '../handle-approval-click.js';
import { viewSubmissionSchema } from '../payloads.js';
import { readDecisionModal } from '../read-decision-modal.js';

export interface DecisionModalDeps extends Omit<ClickDeps, 'respond'> {
  readonly redact: Redact;
  /** Rebuilds the App Home of someone who decided from it. */
  readonly refreshHome: (userId: string) => Promise<void>;
}

/**
 * Submissions of the decision modals. Each is acknowledged first (closing the modal), then decided exactly
 * as a click on the card would be: the same checks, the same compare-and-set, the same private replies.
 */
export function registerDecisionModalListener(app: App, deps: DecisionModalDeps): void {
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
    if (metadata.fromHome) {
      await deps.refreshHome(submission.userId).catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'could not refresh App Home after a decision');
      });
    }
  });
}
