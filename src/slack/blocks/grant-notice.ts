import { redactKnownPatterns } from '../../secrets/index.js';
import type { TurnNotice } from '../../store/outbox-message.js';
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
 * The grant's scope in words: which calls and where. "every `run_shell` call in this thread", "`run_shell`
 * calls whose command matches `kubectl get *` in this channel", "this exact `run_shell` call in this thread".
 */
export function describeGrantScope(notice: Pick<GrantUsedNotice, 'tool' | 'covers' | 'scope'>): string {
  const where = notice.scope === 'channel' ? 'anywhere in this channel' : 'in this thread';
  const tool = toolCode(notice.tool);
  switch (notice.covers.type) {
    case 'exact':
      return `this exact ${tool} call ${where}`;
    case 'tool':
      return `every ${tool} call ${where}`;
    case 'pattern': {
      const matches = Object.entries(notice.covers.patterns)
        .map(([name, pattern]) => `${escapeAndTruncate(oneLine(name), 60)} matches ${code(pattern, 200)}`)
        .join(' and ');
      return `${tool} calls whose ${matches} ${where}`;
    }
  }
}

/**
 * "🔓 `run_shell` `kubectl get pods` ran without asking, under @bob's grant for `run_shell` calls whose
 * command matches `kubectl get *` in this thread, until 14:00": a call that needed no card still shows in
 * the thread, with whose say-so, what the grant covers, where, and until when.
 */
export function buildGrantNotice(notice: GrantUsedNotice, options: { timeZone?: string } = {}): SlackMessage {
  const until =
    notice.expiresAt === null ? 'until revoked' : `until ${formatSlackDate(notice.expiresAt, options)}`;
  const uses =
    notice.usesLeft === null ? '' : ` · ${notice.usesLeft} use${notice.usesLeft === 1 ? '' : 's'} left`;
  const text = truncateText(
    `🔓 ${toolCode(notice.tool)} ${code(notice.call, 300)} ran without asking, under ${mentionUser(notice.grantedBy)}'s grant ` +
      `for ${describeGrantScope(notice)}, ${until}${uses}. Revoke it with \`/approvals grants\`.`,
    BLOCK_KIT_LIMITS.sectionText,
  );
  return { text, blocks: [{ type: 'context', elements: [mrkdwn(text)] }] };
}
