import type { KnownBlock } from '@slack/types';
import type { CardOptions } from './approval-card-parts.js';
import { mrkdwn } from './approval-card-parts.js';
import { packEntries, plural } from './approval-inbox-entry.js';
import type { ApprovalView } from './approval-view.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import type { SlackMessage } from './slack-message.js';

export interface InboxOptions extends CardOptions {
  /** `channel`: pending in the channel the command ran in; `all`: everything the viewer may decide. */
  readonly scope: 'channel' | 'all';
  /** The Slack user the reply is for. */
  readonly viewer: string;
  /** Pending approvals the caller left out of `entries` (it pages the store), counted in the totals. */
  readonly truncatedCount?: number;
}

// The intro and the "more" note.
const RESERVED_BLOCKS = 2;
// Well under the cumulative limit: each entry carries buttons and confirm dialogs, and Slack's count of
// block "containers" on top of the text is not documented.
const ENTRIES_TEXT_BUDGET = 6000;

function where(scope: InboxOptions['scope']): string {
  return scope === 'channel' ? 'in this channel' : 'that you can decide';
}

/**
 * The ephemeral `/approvals` reply: pending requests, oldest first as given, each linked to its thread
 * with the same three buttons as the card. Shows as many as fit one message and says how many more wait.
 */
export function buildApprovalInbox(entries: readonly ApprovalView[], options: InboxOptions): SlackMessage {
  const total = entries.length + Math.max(0, options.truncatedCount ?? 0);
  if (total === 0) {
    const text = `Nothing is waiting for approval ${where(options.scope)}.`;
    return { text, blocks: [{ type: 'section', text: mrkdwn(text) }] };
  }
  const heading = `${plural(total, 'approval', 'approvals')} waiting ${where(options.scope)}`;
  const packed = packEntries(
    entries,
    {
      maxBlocks: BLOCK_KIT_LIMITS.messageBlocks - RESERVED_BLOCKS,
      maxText: ENTRIES_TEXT_BUDGET,
    },
    options,
  );
  const blocks: KnownBlock[] = [{ type: 'section', text: mrkdwn(`*${heading}*`) }, ...packed.blocks];
  const hidden = total - packed.shown;
  if (hidden > 0) {
    blocks.push({
      type: 'context',
      elements: [
        mrkdwn(`Showing ${packed.shown} of ${total}: ${plural(hidden, 'more waits', 'more wait')}.`),
      ],
    });
  }
  return { text: `${heading}.`, blocks };
}
