import type { ContextBlock, KnownBlock } from '@slack/types';
import type { ApproverCopyOccasion } from '../../store/outbox-message.js';
import { mentionUser, slackUrl } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { truncateText } from '../text/truncate-text.js';
import {
  argumentsSection,
  type CardOptions,
  fallbackSubject,
  header,
  mentionList,
  mrkdwn,
  requestContext,
  summarySection,
} from './approval-card-parts.js';
import { decisionContext, viewerActions } from './approval-context.js';
import type { ApprovalView } from './approval-view.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import type { SlackMessage } from './slack-message.js';

const headings: Record<ApproverCopyOccasion, string> = {
  request: 'Approval needed',
  reminder: 'Reminder: approval still needed',
  escalation: 'Escalated: nobody has decided',
};

/**
 * The card as it reaches one person in a direct message: the same request and buttons as the thread's
 * card, where it was asked, and for a reminder or an escalation how long is left. Its fallback text is
 * the phone notification, so it leads with what the occasion is and mentions nobody: the DM itself is
 * the notification.
 */
export function buildApproverCopy(
  view: ApprovalView,
  occasion: ApproverCopyOccasion,
  options: CardOptions = {},
): SlackMessage {
  const pending = { ...options, pending: true };
  const args = argumentsSection(view);
  const context = decisionContext(view);
  const expires = formatSlackDate(view.expiresAt, { timeZone: options.timeZone });
  const blocks: KnownBlock[] = [
    header(headings[occasion]),
    whereAsked(view, occasion, expires),
    summarySection(view, pending),
    ...(context ? [context] : []),
    args.block,
    requestContext(view, pending),
    viewerActions(view, args.whole ? 'decide' : 'view-first'),
  ];
  const text = `${headings[occasion]}: ${fallbackSubject(view)} requested by ${mentionUser(view.requestedBy)} in <#${view.channelId}>`;
  return { text: truncateText(text, BLOCK_KIT_LIMITS.messageText), blocks };
}

function whereAsked(view: ApprovalView, occasion: ApproverCopyOccasion, expires: string): ContextBlock {
  const thread = view.threadLink ? `<${slackUrl(view.threadLink)}|the thread>` : 'the thread';
  const asked = `Asked in <#${view.channelId}> (${thread}).`;
  switch (occasion) {
    case 'request':
      return { type: 'context', elements: [mrkdwn(asked)] };
    case 'reminder':
      return {
        type: 'context',
        elements: [mrkdwn(`${asked} Nobody has decided yet; it expires ${expires}.`)],
      };
    case 'escalation': {
      const approvers = mentionList(view);
      return {
        type: 'context',
        elements: [
          mrkdwn(
            `${asked} It expires ${expires} and nobody has decided${
              approvers === '' ? '' : ` (approvers: ${approvers})`
            }. Decide it if you may, or find someone who can.`,
          ),
        ],
      };
    }
  }
}
