import type { TurnNotice } from '../../outbox/outbox-message.js';
import { redactKnownPatterns } from '../../secrets/index.js';
import { inlineCodeSafe, mentionUser } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { escapeAndTruncate, oneLine, truncateText } from '../text/truncate-text.js';
import { mrkdwn, toolCode } from './approval-card-parts.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import type { SlackMessage } from './slack-message.js';

export type GrantUsedNotice = Extract<TurnNotice, { type: 'grant-used' }>;

function code(text: string, max: number): string {
  return `\`${escapeAndTruncate(inlineCodeSafe(oneLine(redactKnownPatterns(text))), max)}\``;
}

/** What the grant covers, in the words of the grant modal. */
export function describeGrantCover(covers: GrantUsedNotice['covers']): string {
  switch (covers.type) {
    case 'exact':
      return 'this exact call';
    case 'tool':
      return 'every call';
    case 'pattern':
      return Object.values(covers.patterns)
        .map((pattern) => code(pattern, 200))
        .join(', ');
  }
}

/**
 * "🔓 `kubectl get pods` ran under @bob's grant `kubectl get *` (this thread), expires 14:00": a call that
 * needed no card still shows in the thread, with whose say-so and until when.
 */
export function buildGrantNotice(notice: GrantUsedNotice, options: { timeZone?: string } = {}): SlackMessage {
  const where = notice.scope === 'channel' ? 'this channel' : 'this thread';
  const until =
    notice.expiresAt === null ? 'until revoked' : `expires ${formatSlackDate(notice.expiresAt, options)}`;
  const uses =
    notice.usesLeft === null ? '' : ` · ${notice.usesLeft} use${notice.usesLeft === 1 ? '' : 's'} left`;
  const text = truncateText(
    `🔓 ${toolCode(notice.tool)} ${code(notice.call, 300)} ran under ${mentionUser(notice.grantedBy)}'s grant ` +
      `${describeGrantCover(notice.covers)} (${where}), ${until}${uses}. Revoke it with \`/approvals grants\`.`,
    BLOCK_KIT_LIMITS.sectionText,
  );
  return { text, blocks: [{ type: 'context', elements: [mrkdwn(text)] }] };
}
