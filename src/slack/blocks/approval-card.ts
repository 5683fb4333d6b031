import type { KnownBlock, SectionBlock } from '@slack/types';
import { mentionUser } from '../text/escape-mrkdwn.js';
import { truncateText } from '../text/truncate-text.js';
import {
  argumentsSection,
  type CardOptions,
  editContext,
  fallbackSubject,
  header,
  mentionList,
  mrkdwn,
  requestContext,
  summarySection,
} from './approval-card-parts.js';
import { decisionContext, viewerActions } from './approval-context.js';
import type { ApprovalOutcome, ApprovalView } from './approval-view.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';
import { describeOutcome } from './describe-outcome.js';
import type { SlackMessage } from './slack-message.js';

export type { CardOptions } from './approval-card-parts.js';

const FALLBACK_MENTIONS_MAX = 1000;

function optional<Block>(block: Block | undefined): Block[] {
  return block === undefined ? [] : [block];
}

/**
 * The approval card posted in the thread: what will run, who asked and why, when it expires, who may
 * decide, and the three buttons. Arguments too long for the card get "View full arguments" instead of
 * Allow, so nothing is allowed from a prefix. The fallback text is written as a phone notification and
 * mentions the approvers, because notifications are built from `text`, not from blocks.
 */
export function buildApprovalCard(view: ApprovalView, options: CardOptions = {}): SlackMessage {
  const pending = { ...options, pending: true };
  const args = argumentsSection(view);
  const edited = editContext(view);
  const blocks: KnownBlock[] = [
    header('Approval needed'),
    summarySection(view, pending),
    ...optional(decisionContext(view)),
    args.block,
    ...(edited ? [edited] : []),
    requestContext(view, pending),
    viewerActions(view, args.whole ? 'decide' : 'view-first'),
  ];
  const approvers = mentionList(view, FALLBACK_MENTIONS_MAX);
  const text = `Approval needed: ${fallbackSubject(view)} requested by ${mentionUser(view.requestedBy)}${
    approvers === '' ? '' : ` (approvers: ${approvers})`
  }`;
  return { text: truncateText(text, BLOCK_KIT_LIMITS.messageText), blocks };
}

/**
 * The card after its decision (for `chat.update` on the stored channel/ts): the same request, the outcome,
 * who decided and when, and no buttons, so nothing on it can be clicked again.
 */
export function buildDecidedCard(
  view: ApprovalView,
  outcome: ApprovalOutcome,
  options: CardOptions = {},
): SlackMessage {
  const decided = { ...options, pending: false };
  const words = describeOutcome(outcome, options);
  const outcomeSection: SectionBlock = { type: 'section', text: mrkdwn(words.line) };
  const edited = editContext(view);
  const blocks: KnownBlock[] = [
    header(words.title),
    summarySection(view, decided),
    ...optional(decisionContext(view)),
    argumentsSection(view).block,
    ...(edited ? [edited] : []),
    requestContext(view, decided),
    outcomeSection,
  ];
  const text = `${words.fallback}: ${fallbackSubject(view)}`;
  return { text: truncateText(text, BLOCK_KIT_LIMITS.messageText), blocks };
}
