import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { inlineCodeSafe } from '../text/escape-mrkdwn.js';
import { escapeAndTruncate } from '../text/truncate-text.js';
import { mrkdwn, summaryText, toolCode } from './approval-card-parts.js';
import type { ApprovalView } from './approval-view.js';

export const GRANT_CALLBACK_ID = 'holdfast.approval.grant';

/** Block ids of the grant form's inputs; each input's action id is `value`. */
export const GRANT_FIELDS = {
  covers: 'holdfast.grant.covers',
  pattern: 'holdfast.grant.pattern',
  scope: 'holdfast.grant.scope',
  duration: 'holdfast.grant.duration',
  uses: 'holdfast.grant.uses',
} as const;
export const GRANT_ACTION_ID = 'value';

export type GrantCoverChoice = 'exact' | 'pattern';
export type GrantScopeChoice = 'conversation' | 'channel';
export const grantDurations = { '1h': 60 * 60_000, '8h': 8 * 60 * 60_000, revoked: null } as const;
export type GrantDurationChoice = keyof typeof grantDurations;

function option(value: string, text: string): PlainTextOption {
  return { value, text: { type: 'plain_text', text } };
}

/**
 * "Always allow" as a form whose defaults are one tap to accept and stay narrow: the pattern proposed
 * from the call (or this exact call when there is none), in this thread, for an hour. `proposed` names the
 * argument the pattern applies to.
 */
export function buildGrantModal(
  view: ApprovalView,
  options: { readonly proposed?: { argument: string; pattern: string }; readonly metadata: string },
): ModalView {
  const exact = option('exact', 'Only this exact call');
  const pattern = options.proposed
    ? option('pattern', `Calls whose ${options.proposed.argument} matches the pattern below`.slice(0, 75))
    : undefined;
  const thread = option('conversation', 'This thread');
  const hour = option('1h', 'For 1 hour');
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: mrkdwn(
        `*Allow ${toolCode(view.toolName)} now, and without asking again for:*\n${summaryText(view, 500)}`,
      ),
    },
    {
      type: 'input',
      block_id: GRANT_FIELDS.covers,
      label: { type: 'plain_text', text: 'What it covers' },
      element: {
        type: 'radio_buttons',
        action_id: GRANT_ACTION_ID,
        options: pattern ? [pattern, exact] : [exact],
        initial_option: pattern ?? exact,
      },
    },
  ];
  if (options.proposed) {
    blocks.push({
      type: 'input',
      block_id: GRANT_FIELDS.pattern,
      optional: true,
      label: {
        type: 'plain_text',
        text: `Pattern for ${escapeAndTruncate(inlineCodeSafe(options.proposed.argument), 60)}`,
      },
      hint: {
        type: 'plain_text',
        text: '* matches any text except shell control characters ( ; & | ` $ ( ) < > ), so one command never lets a second through.',
      },
      element: {
        type: 'plain_text_input',
        action_id: GRANT_ACTION_ID,
        initial_value: options.proposed.pattern,
        max_length: 500,
      },
    });
  }
  blocks.push(
    {
      type: 'input',
      block_id: GRANT_FIELDS.scope,
      label: { type: 'plain_text', text: 'Where' },
      element: {
        type: 'radio_buttons',
        action_id: GRANT_ACTION_ID,
        options: [thread, option('channel', 'Every thread in this channel')],
        initial_option: thread,
      },
    },
    {
      type: 'input',
      block_id: GRANT_FIELDS.duration,
      label: { type: 'plain_text', text: 'How long' },
      element: {
        type: 'static_select',
        action_id: GRANT_ACTION_ID,
        options: [hour, option('8h', 'For 8 hours'), option('revoked', 'Until revoked')],
        initial_option: hour,
      },
    },
    {
      type: 'input',
      block_id: GRANT_FIELDS.uses,
      optional: true,
      label: { type: 'plain_text', text: 'At most this many calls (optional)' },
      element: {
        type: 'number_input',
        action_id: GRANT_ACTION_ID,
        is_decimal_allowed: false,
        min_value: '1',
        max_value: '1000',
      },
    },
  );
  return {
    type: 'modal',
    callback_id: GRANT_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Always allow' },
    submit: { type: 'plain_text', text: 'Allow and grant' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: options.metadata,
    blocks,
  };
}
