import type { ModalView } from '@slack/types';
import { mrkdwn, summaryText, toolCode } from './approval-card-parts.js';
import type { ApprovalView } from './approval-view.js';

export const DENY_REASON_CALLBACK_ID = 'holdfast.approval.deny_reason';
export const DENY_REASON_BLOCK_ID = 'holdfast.deny.reason';
export const DENY_REASON_ACTION_ID = 'reason';
/** Enough for a sentence or two; the reason goes on the card and to the model. */
export const DENY_REASON_MAX = 500;

/**
 * "Deny" asks why, without insisting: the reason is optional, so a denial is still one more tap. The
 * modal carries the click it answers in `metadata` (see `denyClickMetadataSchema`), since its submission
 * arrives without the card it came from.
 */
export function buildDenyReasonModal(view: ApprovalView, metadata: string): ModalView {
  return {
    type: 'modal',
    callback_id: DENY_REASON_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Deny request' },
    submit: { type: 'plain_text', text: 'Deny' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: metadata,
    blocks: [
      {
        type: 'section',
        text: mrkdwn(`*Deny ${toolCode(view.toolName)}?*\n${summaryText(view, 500)}`),
      },
      {
        type: 'input',
        block_id: DENY_REASON_BLOCK_ID,
        optional: true,
        label: { type: 'plain_text', text: 'Reason (optional)' },
        hint: {
          type: 'plain_text',
          text: 'Shown on the card in the thread and told to the assistant, so it can say why.',
        },
        element: {
          type: 'plain_text_input',
          action_id: DENY_REASON_ACTION_ID,
          multiline: true,
          max_length: DENY_REASON_MAX,
          placeholder: { type: 'plain_text', text: 'e.g. not during the freeze; ask again after 18:00' },
        },
      },
    ],
  };
}
