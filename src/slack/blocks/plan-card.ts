import type { ActionsBlock, Button, KnownBlock, SectionBlock } from '@slack/types';
import { isArgsFingerprint } from '../../approvals/args-fingerprint.js';
import { PLAN_MAX_REQUESTS } from '../../store/outbox-message.js';
import { mentionUser } from '../text/escape-mrkdwn.js';
import { formatSlackDate } from '../text/slack-date.js';
import { escapeAndTruncate, escapeWithin, truncateText } from '../text/truncate-text.js';
import { buildApprovalActions } from './approval-actions.js';
import {
  argumentPreview,
  type CardOptions,
  header,
  mentionList,
  mrkdwn,
  shownLine,
  summaryText,
} from './approval-card-parts.js';
import { decisionContext } from './approval-context.js';
import type { ApprovalOutcome, ApprovalView } from './approval-view.js';
import { compactArguments } from './arguments-text.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import { describeOutcome } from './describe-outcome.js';
import type { SlackMessage } from './slack-message.js';

/** The action id of a plan's "Allow all"; its value lists `requestId:fingerprint` of each call it allows. */
export const PLAN_ALLOW_ALL_ACTION_ID = 'holdfast.approval.allow_all';

/** One call of a plan: its request, and its outcome once decided. */
export interface PlanItem {
  readonly view: ApprovalView;
  readonly outcome?: ApprovalOutcome;
}

const ARGUMENTS_MAX = 1500;
const CONTEXT_MAX = 1200;

/** "`run_shell: df -h`": what a task runs, so three calls of one tool read as three different tasks. */
export function taskName(view: ApprovalView): string {
  const tool = escapeAndTruncate(shownLine(view.toolName).replace(/`/g, "'"), 80);
  const preview = argumentPreview(view.argumentsJson);
  return preview === '' ? `\`${tool}\`` : `\`${tool}: ${preview}\``;
}

function callArguments(view: ApprovalView): { text: string; whole: boolean } {
  const compact = compactArguments(view.argumentsJson);
  if (compact.trim() === '') return { text: '_no arguments_', whole: true };
  const slice = escapeWithin(compact, ARGUMENTS_MAX);
  const note =
    slice.omitted > 0
      ? `\n_(truncated, ${slice.omitted} more characters: use *View full arguments* to see them all)_`
      : '';
  return { text: `\`\`\`\n${slice.text}\n\`\`\`${note}`, whole: slice.omitted === 0 };
}

function callBlocks(item: PlanItem, index: number, options: CardOptions): KnownBlock[] {
  const { view } = item;
  const args = callArguments(view);
  const context = decisionContext(view)?.text?.text;
  const title = `*${index + 1}.* ${taskName(view)}\n${summaryText(view, 300)}`;
  const details: SectionBlock = {
    type: 'section',
    text: mrkdwn(
      truncateText(
        `${title}${context ? `\n${truncateText(context, CONTEXT_MAX)}` : ''}\n${args.text}`,
        BLOCK_KIT_LIMITS.sectionText,
      ),
    ),
  };
  const decision: KnownBlock = item.outcome
    ? { type: 'context', elements: [mrkdwn(describeOutcome(item.outcome, options).line)] }
    : buildApprovalActions(view, args.whole ? 'decide' : 'view-first');
  return [{ type: 'divider' }, details, decision];
}

/** "Allow all": offered while two or more calls wait and every one was shown whole. */
function allowAllBlock(items: readonly PlanItem[]): ActionsBlock | undefined {
  const pending = items.filter((item) => item.outcome === undefined);
  if (pending.length < 2 || pending.some((item) => !callArguments(item.view).whole)) return undefined;
  const first = items[0]?.view.requestId ?? '';
  const button: Button = {
    type: 'button',
    action_id: PLAN_ALLOW_ALL_ACTION_ID,
    text: { type: 'plain_text', text: `Allow all ${pending.length}`, emoji: true },
    style: 'primary',
    // Each call's fingerprint rides with its request id, as each call's own buttons carry theirs.
    value: pending.map((item) => `${item.view.requestId}:${item.view.argsFingerprint}`).join(' '),
    confirm: {
      title: { type: 'plain_text', text: `Allow all ${pending.length} calls?` },
      text: mrkdwn(
        `Each of the ${pending.length} calls still waiting runs once, with the arguments shown, in the order listed.`,
      ),
      confirm: { type: 'plain_text', text: 'Allow all' },
      deny: { type: 'plain_text', text: 'Cancel' },
    },
  };
  return { type: 'actions', block_id: `holdfast.plan:${first}`, elements: [button] };
}

/** The `requestId:fingerprint` pairs an "Allow all" button carries; empty for anything malformed. */
export function parseAllowAllValue(value: string): Array<{ requestId: string; argsFingerprint: string }> {
  const pairs = value.split(' ').map((pair) => {
    const colon = pair.lastIndexOf(':');
    return { requestId: pair.slice(0, colon), argsFingerprint: pair.slice(colon + 1) };
  });
  const wellFormed = pairs.every((pair) => pair.requestId !== '' && isArgsFingerprint(pair.argsFingerprint));
  return wellFormed && pairs.length >= 2 && pairs.length <= PLAN_MAX_REQUESTS ? pairs : [];
}

/**
 * The card of a plan: the calls of one assistant message that wait for people, in one message. Each call
 * is a task named by what it runs, with its own buttons (or, once decided, who decided it and when);
 * the card says that nothing runs until every call is decided, and offers "Allow all" while two or more
 * wait. A decision on one call rewrites the whole card.
 */
export function buildPlanCard(items: readonly PlanItem[], options: CardOptions = {}): SlackMessage {
  const first = items[0]?.view;
  if (!first) throw new RangeError('a plan has at least one call');
  const decided = items.filter((item) => item.outcome !== undefined).length;
  const total = items.length;
  const open = decided < total;
  const state = open
    ? `*Nothing runs until every call is decided.* ${decided} of ${total} decided.`
    : `All ${total} calls are decided.`;
  const expires = formatSlackDate(Math.min(...items.map((item) => item.view.expiresAt)), {
    timeZone: options.timeZone,
  });
  const asked = `Requested by ${mentionUser(first.requestedBy)} ${formatSlackDate(first.createdAt, { timeZone: options.timeZone })}`;
  const approvers = open ? mentionList(first) : '';
  const allowAll = open ? allowAllBlock(items) : undefined;
  const blocks: KnownBlock[] = [
    header(open ? `Approval needed: a plan of ${total} calls` : `Plan of ${total} calls decided`),
    { type: 'section', text: mrkdwn(state) },
    {
      type: 'context',
      elements: [
        mrkdwn(
          `${asked}${open ? ` · expires ${expires}` : ''}${approvers === '' ? '' : ` · Approvers: ${approvers}`}`,
        ),
      ],
    },
    ...items.flatMap((item, index) => callBlocks(item, index, options)),
    ...(allowAll ? [{ type: 'divider' } as const, allowAll] : []),
  ];
  const tasks = items.map((item) => argumentPreview(item.view.argumentsJson) || item.view.toolName);
  const text = open
    ? `Approval needed: a plan of ${total} calls requested by ${mentionUser(first.requestedBy)} (${tasks.join(', ')})${
        approvers === '' ? '' : ` (approvers: ${approvers})`
      }`
    : `Plan of ${total} calls decided: ${tasks.join(', ')}`;
  return { text: truncateText(text, BLOCK_KIT_LIMITS.messageText), blocks };
}
