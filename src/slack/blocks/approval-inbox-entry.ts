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

/**
 * Where and by whom, how old, and when it expires: `<#C…> · requested by @alice · asked 5 minutes ago ·
 * expires …`, led by "Waiting on you" for what the viewer may decide, and with a short ref when the same
 * call waits more than once, so two identical requests can be told apart.
 */
function entryMeta(view: ApprovalView, options: EntryOptions, repeated: boolean): string {
  const you = view.requestedBy === options.viewer ? ' (you)' : '';
  const asked = formatSlackDate(view.createdAt, { timeZone: options.timeZone, format: '{ago}' });
  const parts = [
    view.viewerMay === 'decide' ? '*Waiting on you*' : '',
    view.channelId === '' ? '' : `<#${view.channelId}>`,
    `requested by ${mentionUser(view.requestedBy)}${you}`,
    `asked ${asked}`,
    `expires ${formatSlackDate(view.expiresAt, { timeZone: options.timeZone })}`,
  ];
  const tool = [toolCode(view.toolName), escapeAndTruncate(oneLine(view.permissionType), 100)];
  if (view.quorum) tool.push(`${view.quorum.approvedBy.length} of ${view.quorum.required} approvals`);
  if (repeated) tool.push(`ref \`${shortRef(view.requestId)}\``);
  const line = (items: string[]) => items.filter((part) => part !== '').join(' · ');
  return `${line(parts)}\n${line(tool)}`;
}

/** The last characters of the opaque request id: enough to tell two identical requests apart. */
function shortRef(requestId: string): string {
  return requestId.replace(/[^A-Za-z0-9]/g, '').slice(-5);
}

/** The tool and arguments a request runs: equal keys are requests no summary can tell apart. */
function callKey(view: ApprovalView): string {
  return `${view.toolName}\u0000${view.argumentsJson}`;
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
 * One pending request in a list: a linked summary, its arguments and details, then the buttons the
 * viewer may press: the same three as the card when the arguments fit, "View full arguments" and Deny
 * when they do not.
 */
function inboxEntryBlocks(view: ApprovalView, options: EntryOptions, repeated = false): KnownBlock[] {
  const args = entryArguments(view);
  return [
    {
      type: 'section',
      text: mrkdwn(`${entryTitle(view)}\n${args.text}\n${entryMeta(view, options, repeated)}`),
    },
    viewerActions(view, args.whole ? 'decide' : 'view-first'),
  ];
}

export interface PackedEntries {
  readonly blocks: KnownBlock[];
  readonly shown: number;
}

/**
 * As many entries as fit, within a block count and a text budget: what waits on the viewer first, then
 * the rest, each group in the given order, with a divider between entries.
 */
export function packEntries(
  entries: readonly ApprovalView[],
  budget: { readonly maxBlocks: number; readonly maxText: number },
  options: EntryOptions,
): PackedEntries {
  const counts = new Map<string, number>();
  for (const view of entries) counts.set(callKey(view), (counts.get(callKey(view)) ?? 0) + 1);
  const ordered = [
    ...entries.filter((view) => view.viewerMay === 'decide'),
    ...entries.filter((view) => view.viewerMay !== 'decide'),
  ];
  const blocks: KnownBlock[] = [];
  let text = 0;
  let shown = 0;
  for (const view of ordered) {
    const entry = [
      ...(shown > 0 ? [{ type: 'divider' } as const] : []),
      ...inboxEntryBlocks(view, options, (counts.get(callKey(view)) ?? 0) > 1),
    ];
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
