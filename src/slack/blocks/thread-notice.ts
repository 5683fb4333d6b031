import { redactKnownPatterns } from '../../secrets/index.js';
import { escapeMrkdwn } from '../text/escape-mrkdwn.js';
import { truncateText } from '../text/truncate-text.js';
import { mrkdwn } from './approval-card-parts.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import type { SlackMessage } from './slack-message.js';

/**
 * A short message for the thread or an ephemeral reply. `detail` is plain text from our own code or an
 * error; it is redacted and escaped here.
 */
export type ThreadNotice =
  | { type: 'failed'; detail: string }
  | { type: 'interrupted'; detail: string }
  | { type: 'expired'; detail: string }
  | { type: 'refused'; detail: string };

function lead(notice: ThreadNotice): string {
  switch (notice.type) {
    case 'failed':
      return '⚠️ Something went wrong:';
    case 'interrupted':
      return '⚠️ Interrupted: outcome unknown.';
    case 'expired':
      return '⌛ Approval expired:';
    case 'refused':
      return '🚫';
  }
}

/** Turn failed, tool interrupted, approval expired, or a refused click explained. */
export function buildThreadNotice(notice: ThreadNotice): SlackMessage {
  const detail = escapeMrkdwn(redactKnownPatterns(notice.detail).trim());
  const text = truncateText(
    detail === '' ? lead(notice) : `${lead(notice)} ${detail}`,
    BLOCK_KIT_LIMITS.sectionText,
  );
  return { text, blocks: [{ type: 'section', text: mrkdwn(text) }] };
}
