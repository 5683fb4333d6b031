import type { KnownBlock } from '@slack/types';
import { mentionUser, slackUrl } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { escapeAndTruncate, oneLine } from '../text/truncate-text.js';
import { buildApprovalActions } from './approval-actions.js';
import { type CardOptions, mrkdwn, summaryText, toolCode } from './approval-card-parts.js';
import type { ApprovalView } from './approval-view.js';
import { measureBlockText } from './block-kit-limits.js';

export interface EntryOptions extends CardOptions {
  readonly viewer: string;
}

const ENTRY_SUMMARY_MAX = 300;

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

/** One pending request in a list: a linked summary with its details, then the same three buttons. */
export function inboxEntryBlocks(view: ApprovalView, options: EntryOptions): KnownBlock[] {
  return [
    { type: 'section', text: mrkdwn(`${entryTitle(view)}\n${entryMeta(view, options)}`) },
    buildApprovalActions(view),
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
