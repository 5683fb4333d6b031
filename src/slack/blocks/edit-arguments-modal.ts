import type { KnownBlock, ModalView } from '@slack/types';
import { inlineCodeSafe } from '../text/escape-mrkdwn.js';
import { escapeAndTruncate, truncateText } from '../text/truncate-text.js';
import { mrkdwn, summaryText, toolCode } from './approval-card-parts.js';
import type { ApprovalView } from './approval-view.js';

export const EDIT_CALLBACK_ID = 'holdfast.approval.edit';

/** One argument's input in the form (see `editFields`, which derives them from the request). */
export interface EditFormField {
  readonly name: string;
  readonly blockId: string;
  readonly kind: 'text' | 'json' | 'kept';
  readonly initial: string;
  readonly multiline: boolean;
}

/**
 * "Edit…": the call's arguments as inputs, one per argument, prefilled, so an approver on a phone changes
 * one word and taps Allow. Submitting allows the edited call (it counts as this approver's approval), after
 * it is checked against policy again. An argument holding a secret is shown redacted and kept as it is.
 */
export function buildEditArgumentsModal(
  view: ApprovalView,
  fields: readonly EditFormField[],
  options: { readonly metadata: string; readonly actionId: string },
): ModalView {
  const quorum = view.quorum ? ' Approvals given so far were for the old arguments: they start over.' : '';
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwn(
        `*Edit ${toolCode(view.toolName)}, then allow it*\n${summaryText(view, 500)}\n` +
          `_The edited call is checked against policy again and runs instead of the proposed one; the assistant is told it was edited.${quorum}_`,
      ),
    },
  ];
  for (const field of fields) {
    const name = escapeAndTruncate(inlineCodeSafe(field.name), 60);
    if (field.kind === 'kept') {
      blocks.push({
        type: 'section',
        block_id: field.blockId,
        text: mrkdwn(
          `*${name}* holds a secret, so it is kept as it is:\n\`${escapeAndTruncate(inlineCodeSafe(field.initial), 300)}\``,
        ),
      });
      continue;
    }
    blocks.push({
      type: 'input',
      block_id: field.blockId,
      // Required, so a field cleared by a slip of the thumb is caught by Slack; one that was empty stays so.
      optional: field.initial === '',
      label: {
        type: 'plain_text',
        text: truncateText(field.kind === 'json' ? `${field.name} (JSON)` : field.name, 150),
      },
      element: {
        type: 'plain_text_input',
        action_id: options.actionId,
        initial_value: field.initial,
        multiline: field.multiline,
        max_length: 3000,
      },
    });
  }
  return {
    type: 'modal',
    callback_id: EDIT_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Edit, then allow' },
    submit: { type: 'plain_text', text: 'Allow edited' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: options.metadata,
    blocks,
  };
}
