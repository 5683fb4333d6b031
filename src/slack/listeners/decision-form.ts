import type { Logger } from 'pino';
import type { DecisionAction } from '../../approvals/decide-approval.js';
import type { ApprovalClick } from '../approvals/handle-approval-click.js';
import { type DecisionModalSubmission, readDecisionModal } from '../approvals/read-decision-modal.js';
import { viewSubmissionSchema } from '../payloads.js';

/**
 * A submitted decision form (deny reason, grant, edit) read back; undefined, and logged, when it is not a
 * form holdfast opened. `what` names the form in the log line.
 */
export function readDecisionForm(
  body: unknown,
  logger: Logger,
  what: string,
): DecisionModalSubmission | undefined {
  const parsed = viewSubmissionSchema.safeParse(body);
  const submission = parsed.success ? readDecisionModal(parsed.data) : undefined;
  if (!submission) logger.warn(`ignoring ${what} that holdfast did not open`);
  return submission;
}

/** The click a submitted form stands for: it is decided with every check of a tap on the card. */
export function clickOf(submission: DecisionModalSubmission, action: DecisionAction): ApprovalClick {
  const { metadata } = submission;
  return {
    requestId: metadata.requestId,
    action,
    userId: submission.userId,
    teamId: submission.teamId,
    origin: submission.origin,
    argsFingerprint: metadata.argsFingerprint,
    replyTo: metadata.replyTo?.channel
      ? { channel: metadata.replyTo.channel, threadTs: metadata.replyTo.threadTs }
      : undefined,
  };
}

/**
 * Rebuilds the App Home of someone who decided from it. The decision already stands, so a failure here
 * is logged, not thrown.
 */
export async function refreshHomeAfterDecision(
  deps: { readonly refreshHome: (userId: string) => Promise<void>; readonly logger: Logger },
  submission: DecisionModalSubmission,
): Promise<void> {
  if (!submission.metadata.fromHome) return;
  await deps.refreshHome(submission.userId).catch((error: unknown) => {
    deps.logger.warn({ err: error }, 'could not refresh App Home after a decision');
  });
}
