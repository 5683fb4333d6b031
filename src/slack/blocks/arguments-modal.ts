import type { KnownBlock, ModalView } from '@slack/types';
import { buildApprovalActions } from './approval-actions.js';
import { type CardOptions, mrkdwn, summarySection } from './approval-card-parts.js';
import type { ApprovalView } from './approval-view.js';
import { chunkArguments, codeBlockArguments } from './arguments-text.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';

export interface ArgumentsModalOptions extends CardOptions {
  /** Where a private reply to a click in the modal goes: the channel (and thread) it was opened from. */
  readonly replyTo?: { readonly channel: string; readonly threadTs?: string };
}

export const ARGUMENTS_MODAL_CALLBACK_ID = 'holdfast.approval.arguments';

const FENCE_OPEN = '```\n';
const FENCE_CLOSE = '\n```';
const CHUNK_MAX = BLOCK_KIT_LIMITS.sectionText - FENCE_OPEN.length - FENCE_CLOSE.length;
// About 30,000 characters. Slack documents no total for a modal's text, and arguments longer than this
// are more than a person reviews before clicking Allow; such a request can only be denied from Slack.
const MAX_ARGUMENT_SECTIONS = 10;

/**
 * The "View full arguments" modal: the request and all of its arguments in consecutive code blocks,
 * then Allow, Deny and Always allow bound to the same arguments fingerprint as the card. Arguments
 * too long even for this get Deny only, with a note saying why.
 */
export function buildArgumentsModal(view: ApprovalView, options: ArgumentsModalOptions = {}): ModalView {
  const prepared = codeBlockArguments(view.argumentsJson);
  const { chunks, omitted } = chunkArguments(prepared, CHUNK_MAX, MAX_ARGUMENT_SECTIONS);
  const whole = omitted === 0;
  const blocks: KnownBlock[] = [
    summarySection(view, { ...options, pending: true }),
    { type: 'section', text: mrkdwn(chunks.length === 0 ? '*Arguments*\n_none_' : '*Arguments*, in full:') },
    ...chunks.map(
      (chunk): KnownBlock => ({
        type: 'section',
        text: mrkdwn(`${FENCE_OPEN}${chunk}${FENCE_CLOSE}`),
      }),
    ),
  ];
  if (!whole) {
    blocks.push({
      type: 'section',
      text: mrkdwn(
        `_${omitted} more characters are not shown. Arguments this long cannot be reviewed in Slack, ` +
          'so this request cannot be allowed here: deny it, or ask for a smaller step._',
      ),
    });
  }
  blocks.push(buildApprovalActions(view, whole ? 'decide' : 'deny-only'));
  return {
    type: 'modal',
    callback_id: ARGUMENTS_MODAL_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Approval request' },
    close: { type: 'plain_text', text: 'Close' },
    private_metadata: JSON.stringify(options.replyTo ?? {}),
    blocks,
  };
}
