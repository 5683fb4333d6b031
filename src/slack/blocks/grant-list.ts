import type { KnownBlock, SectionBlock } from '@slack/types';
import type { Grant } from '../../store/records.js';
import { mentionUser } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { mrkdwn, toolCode } from './approval-card-parts.js';
import { describeGrantCover } from './grant-notice.js';

export const GRANT_REVOKE_ACTION_ID = 'holdfast.grant.revoke';

/** A grant as a list shows it, with where it applies in words (`#ops`, "a thread in #ops"). */
export interface GrantListItem {
  readonly grant: Grant;
  readonly where: string;
}

/** One line per grant: what, where, by whom, until when; and a Revoke button (confirmed). */
export function grantLine(item: GrantListItem, options: { timeZone?: string } = {}): SectionBlock {
  const { grant } = item;
  const covers = describeGrantCover(
    grant.argsHash !== null
      ? { type: 'exact' }
      : grant.match === null
        ? { type: 'tool' }
        : { type: 'pattern', patterns: { ...grant.match } },
  );
  const until =
    grant.expiresAt === null ? 'until revoked' : `expires ${formatSlackDate(grant.expiresAt, options)}`;
  const uses =
    grant.usesLeft === null ? '' : ` · ${grant.usesLeft} use${grant.usesLeft === 1 ? '' : 's'} left`;
  return {
    type: 'section',
    text: mrkdwn(
      `${toolCode(grant.toolName)} ${covers} · ${item.where}\nby ${mentionUser(grant.createdBy)} · ${until}${uses}`,
    ),
    accessory: {
      type: 'button',
      action_id: GRANT_REVOKE_ACTION_ID,
      text: { type: 'plain_text', text: 'Revoke' },
      style: 'danger',
      value: String(grant.id),
      confirm: {
        title: { type: 'plain_text', text: 'Revoke this grant?' },
        text: mrkdwn(`Later ${toolCode(grant.toolName)} calls it covers will ask for approval again.`),
        confirm: { type: 'plain_text', text: 'Revoke' },
        deny: { type: 'plain_text', text: 'Cancel' },
      },
    },
  };
}

/** The `/approvals grants` reply: every standing grant of this channel and its threads. */
export function buildGrantList(
  items: readonly GrantListItem[],
  options: { timeZone?: string; max?: number } = {},
): { text: string; blocks: KnownBlock[] } {
  const max = options.max ?? 40;
  if (items.length === 0)
    return {
      text: 'No standing grants in this channel.',
      blocks: [{ type: 'section', text: mrkdwn('No standing grants in this channel or its threads.') }],
    };
  const shown = items.slice(0, max);
  const blocks: KnownBlock[] = [
    { type: 'section', text: mrkdwn(`*Standing grants in this channel* (${items.length})`) },
    ...shown.map((item) => grantLine(item, options)),
  ];
  if (shown.length < items.length)
    blocks.push({ type: 'context', elements: [mrkdwn(`Showing ${shown.length} of ${items.length}.`)] });
  return { text: `${items.length} standing grant${items.length === 1 ? '' : 's'} in this channel`, blocks };
}
