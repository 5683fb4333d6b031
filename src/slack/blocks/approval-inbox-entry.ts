import type { KnownBlock } from '@slack/types';
import { mentionUser, slackUrl } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { escapeAndTruncate, escapeWithin, oneLine } from '../text/truncate-text.js';
import { type CardOptions, mrkdwn, summaryText, toolCode } from './approval-card-parts.js';
import { viewerActions } from './approval-context.js';
import type { ApprovalView } from './approval-view.js';
import { compactArguments } from './arguments-text.js';
import { measureBlockText } from './block-kit-limits.js';

export interface EntryOptions extends CardOptions {
  readonly viewer: string;
}

const ENTRY_SUMMARY_MAX = 300;
// Lists stay short: longer arguments are shown in the full view, which also carries the decision.
const ENTRY_ARGUMENTS_MAX = 300;

/** The summary, linked to the thread when a permalink is known, so the approver can read the context. */
export function entryTitle(view: ApprovalView, max = ENTRY_SUMMARY_MAX): string {
  const summary = summaryText(view, max);
  const link = view.threadLink;
  if (link === undefined || !/^https?:\/\/\S+$/.test(link)) return `*${summary}*`;
  return `*<${slackUrl(link)}|${summary.replace(/\|/g, '¦')}>*`;
}

function entryMeta(view: ApprovalView, options: EntryOptions): string {
  const you = view.requestedBy === options.viewer ? ' (you)' : '';
  const parts = [
    toolCode(view.toolName),
    escapeAndTruncate(oneLine(view.permissionType), 100),
    `requested by ${mentionUser(view.requestedBy)}${you}`,
    `expires ${formatSlackDate(view.expiresAt, { timeZone: options.timeZone })}`,
  ];
  if (view.quorum) parts.push(`${view.quorum.approvedBy.length} of ${view.quorum.required} approvals`);
  return parts.filter((part) => part !== '').join(' · ');
}

/** The arguments on one line in a code block, and whether that is all of them. */
function entryArguments(view: ApprovalView): { text: string; whole: boolean } {
  const compact = compactArguments(view.argumentsJson);
  if (compact.trim() === '') return { text: '_no arguments_', whole: true };
  const slice = escapeWithin(compact, ENTRY_ARGUMENTS_MAX);
  const note = slice.omitted > 0 ? ` _(${slice.omitted} more characters)_` : '';
  return { text: `\`\`\`\n${slice.text}\n\`\`\`${note}`, whole: slice.omitted === 0 };
}

/**
 * One pending request in a list: a linked summary, its arguments and details, then the buttons: the
 * same three as the card when the arguments fit, "View full arguments" and Deny when they do not.
 */
export function inboxEntryBlocks(view: ApprovalView, options: EntryOptions): KnownBlock[] {
  const args = entryArguments(view);
  return [
    { type: 'section', text: mrkdwn(`${entryTitle(view)}\n${args.text}\n${entryMeta(view, options)}`) },
    viewerActions(view, args.whole ? 'decide' : 'view-first'),
  ];
}

export interface PackedEntries {
  readonly blocks: KnownBlock[];
  readonly shown: number;
}

/** As many entries as fit, in the given order, within a block count and a text budget. */
export function packEntries(
  entries: readonly ApprovalView[],
  budget: { readonly maxBlocks: number; readonly maxText: number },
  options: EntryOptions,
): PackedEntries {
  const blocks: KnownBlock[] = [];
  let text = 0;
  let shown = 0;
  for (const view of entries) {
    const entry = inboxEntryBlocks(view, options);
    const size = measureBlockText(entry);
    if (blocks.length + entry.length > budget.maxBlocks || text + size > budget.maxText) break;
    blocks.push(...entry);
    text += size;
    shown += 1;
  }
  return { blocks, shown };
}

export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
