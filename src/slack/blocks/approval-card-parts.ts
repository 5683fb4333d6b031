import type { ContextBlock, HeaderBlock, MrkdwnElement, SectionBlock } from '@slack/types';
import { redactKnownPatterns } from '../../secrets/index.js';
import { escapeMrkdwn, inlineCodeSafe, mentionGroup, mentionUser } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { escapeAndTruncate, escapeWithin, oneLine, truncateText } from '../text/truncate-text.js';
import type { ApprovalView } from './approval-view.js';
import { codeBlockArguments } from './arguments-text.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import { escapeInvisible } from './escape-invisible.js';

export interface CardOptions {
  /** IANA zone for the fallback text of dates; readers see dates in their own zone either way. */
  readonly timeZone?: string;
}

const SUMMARY_MAX = 1000;
const REASON_MAX = 1800;
const PREVIEW_MAX = 150;
const MENTIONS_MAX = 2000;
const TRUNCATION_NOTE_RESERVE = 100;

export function mrkdwn(text: string): MrkdwnElement {
  return { type: 'mrkdwn', text };
}

export function header(text: string): HeaderBlock {
  return {
    type: 'header',
    text: { type: 'plain_text', text: truncateText(text, BLOCK_KIT_LIMITS.headerText) },
  };
}

export function toolCode(toolName: string): string {
  return `\`${escapeAndTruncate(inlineCodeSafe(escapeInvisible(toolName)), 100)}\``;
}

/** Untrusted text for one line: secrets redacted, invisible characters escaped, whitespace collapsed. */
export function shownLine(text: string): string {
  return oneLine(escapeInvisible(redactKnownPatterns(text)));
}

/** The summary line, escaped and shortened; a blank summary falls back to naming the tool. */
export function summaryText(view: ApprovalView, max = SUMMARY_MAX): string {
  const summary = shownLine(view.summary);
  return summary === '' ? `Run ${toolCode(view.toolName)}` : escapeAndTruncate(summary, max);
}

/** A one-line, ≤150 character view of the arguments for notifications: `df -h`, not a JSON dump. */
export function argumentPreview(argumentsJson: string): string {
  let preview = argumentsJson;
  try {
    const parsed: unknown = JSON.parse(argumentsJson);
    const values = parsed !== null && typeof parsed === 'object' ? Object.values(parsed) : [parsed];
    const only = values.length === 1 ? values[0] : undefined;
    preview =
      typeof only === 'string' || typeof only === 'number' || typeof only === 'boolean'
        ? String(only)
        : JSON.stringify(parsed);
  } catch (error) {
    // Not JSON: show the text as it is.
    if (!(error instanceof SyntaxError)) throw error;
  }
  return escapeMrkdwn(truncateText(inlineCodeSafe(shownLine(preview)), PREVIEW_MAX));
}

/** "run_shell `df -h`": the tool and what it will do, for fallback text. */
export function fallbackSubject(view: ApprovalView): string {
  const preview = argumentPreview(view.argumentsJson);
  const tool = escapeAndTruncate(shownLine(view.toolName), 100);
  return preview === '' ? tool : `${tool} \`${preview}\``;
}

export function mentionList(view: ApprovalView, max = MENTIONS_MAX): string {
  const mentions = [
    ...view.approverMentions.users.map(mentionUser),
    ...view.approverMentions.groups.map(mentionGroup),
  ];
  let text = '';
  for (const [i, mention] of mentions.entries()) {
    const next = text === '' ? mention : `${text} ${mention}`;
    if (next.length > max - 20) return `${text} and ${mentions.length - i} more`;
    text = next;
  }
  return text;
}

export function summarySection(
  view: ApprovalView,
  options: CardOptions & { pending: boolean },
): SectionBlock {
  const reason = view.reason === undefined ? '' : shownLine(view.reason);
  const text =
    reason === ''
      ? summaryText(view)
      : `${summaryText(view)}\n*Why:* ${escapeAndTruncate(reason, REASON_MAX)}`;
  const fields = [
    mrkdwn(`*Tool*\n${toolCode(view.toolName)}`),
    mrkdwn(`*Permission*\n${escapeAndTruncate(oneLine(view.permissionType), 200) || '—'}`),
    mrkdwn(`*Requested by*\n${mentionUser(view.requestedBy)}`),
  ];
  if (options.pending) {
    fields.push(mrkdwn(`*Expires*\n${formatSlackDate(view.expiresAt, { timeZone: options.timeZone })}`));
  }
  if (view.quorum) {
    const { required, approvedBy } = view.quorum;
    const who = approvedBy.slice(0, 10).map(mentionUser).join(' ') + (approvedBy.length > 10 ? ' …' : '');
    fields.push(mrkdwn(`*Approvals*\n${approvedBy.length} of ${required}${who === '' ? '' : `: ${who}`}`));
  }
  return { type: 'section', text: mrkdwn(text), fields };
}

export interface ArgumentsSection {
  readonly block: SectionBlock;
  /** False when the section holds only a prefix: the card must not offer a decision on it. */
  readonly whole: boolean;
}

/**
 * The exact arguments in a code block: escaped, fences inside neutralised, and cut to the section limit
 * with a visible note saying how much is missing, so an approver never mistakes a prefix for the whole.
 */
export function argumentsSection(view: ApprovalView): ArgumentsSection {
  const raw = codeBlockArguments(view.argumentsJson);
  if (raw.trim() === '') {
    return { block: { type: 'section', text: mrkdwn('*Arguments*\n_none_') }, whole: true };
  }
  const head = '*Arguments*\n```\n';
  const tail = '\n```';
  const budget = BLOCK_KIT_LIMITS.sectionText - head.length - tail.length - TRUNCATION_NOTE_RESERVE;
  const slice = escapeWithin(raw, budget);
  const note =
    slice.omitted > 0
      ? `\n_(truncated, ${slice.omitted} more characters: use *View full arguments* to see them all)_`
      : '';
  return {
    block: { type: 'section', text: mrkdwn(`${head}${slice.text}${tail}${note}`) },
    whole: slice.omitted === 0,
  };
}

/** "✏️ Edited by @bob. Proposed: `…`": an edited request says so, with what the model asked for. */
export function editContext(view: ApprovalView): ContextBlock | undefined {
  if (!view.edited) return undefined;
  const proposed = argumentPreview(view.edited.proposedJson);
  return {
    type: 'context',
    elements: [
      mrkdwn(
        `✏️ Arguments edited by ${mentionUser(view.edited.by)}. Proposed: ${proposed === '' ? '_none_' : `\`${proposed}\``}`,
      ),
    ],
  };
}

export function requestContext(
  view: ApprovalView,
  options: CardOptions & { pending: boolean },
): ContextBlock {
  const elements = [mrkdwn(`Requested ${formatSlackDate(view.createdAt, { timeZone: options.timeZone })}`)];
  const mentions = options.pending ? mentionList(view) : '';
  if (mentions !== '') elements.push(mrkdwn(`Approvers: ${mentions}`));
  return { type: 'context', elements };
}
