import type { DirectNotice } from '../../store/outbox-message.js';
import { escapeMrkdwn } from '../text/escape-mrkdwn.js';
import { truncateText } from '../text/truncate-text.js';
import { mrkdwn } from './approval-card-parts.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import type { SlackMessage } from './slack-message.js';

/** Slack's reason a thread cannot take a message, in words that say what to do about it. */
export function explainUndeliverable(reason: string): string {
  switch (reason) {
    case 'not_in_channel':
      return 'holdfast is not a member of that channel. Invite it with `/invite @holdfast` and ask again.';
    case 'channel_not_found':
      return 'the channel no longer exists, or holdfast cannot see it.';
    case 'is_archived':
      return 'the channel is archived.';
    case 'msg_too_long':
      return 'Slack refused the message as too long.';
    case 'restricted_action':
      return 'the workspace does not let holdfast post there.';
    default:
      return `Slack refused the message (${escapeMrkdwn(reason)}).`;
  }
}

function whatFailed(notice: Extract<DirectNotice, { type: 'undeliverable' }>): string {
  switch (notice.what) {
    case 'approval-card':
      return 'an approval request for your message';
    case 'card-update':
      return 'the update of an approval card';
    case 'answer':
      return 'the answer to your request';
    case 'turn-notice':
      return 'a notice about your request';
  }
}

/**
 * A direct message to a person about something holdfast could not do in a thread. An approval that
 * cannot be shown in its thread can still be decided elsewhere, so the message says where.
 */
export function buildDirectNotice(notice: DirectNotice): SlackMessage {
  const lines = [
    `⚠️ holdfast could not post ${whatFailed(notice)} in <#${notice.channelId}>: ${explainUndeliverable(notice.reason)}`,
  ];
  if (notice.what === 'approval-card') {
    lines.push(
      'The request is still waiting: approvers can decide it with `/approvals all` or in holdfast’s Home tab.',
    );
  }
  const text = truncateText(lines.join('\n'), BLOCK_KIT_LIMITS.sectionText);
  return { text, blocks: [{ type: 'section', text: mrkdwn(text) }] };
}
