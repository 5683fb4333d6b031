/** Modals holdfast opens, and their submissions, the way Slack sends them: signed, through the receiver. */
import type { SlackApiCall } from '../../support/fake-slack-api.js';
import type { PostedCard, SlackHarness } from './slack-harness.js';
import { people } from './slack-harness.js';

export interface OpenedModal {
  readonly call: SlackApiCall;
  readonly id: string;
  readonly callbackId: string;
  readonly privateMetadata: string;
  readonly blocks: Array<Record<string, unknown>>;
}

/** Resolves with the next `views.open` after `before` calls of it whose view has this callback id. */
export async function nextModal(
  slack: SlackHarness,
  callbackId: string,
  before: number,
): Promise<OpenedModal> {
  const call = await slack.api.waitFor(
    'views.open',
    (candidate) =>
      slack.api.callsTo('views.open').indexOf(candidate) >= before &&
      (candidate.params.view as { callback_id?: string } | undefined)?.callback_id === callbackId,
  );
  const view = call.params.view as { callback_id: string; private_metadata?: string; blocks?: unknown[] };
  const opened = call.response.view as { id?: string } | undefined;
  return {
    call,
    id: String(opened?.id ?? 'V0UNKNOWN'),
    callbackId: view.callback_id,
    privateMetadata: view.private_metadata ?? '',
    blocks: (view.blocks ?? []) as Array<Record<string, unknown>>,
  };
}

/** A state value: typed text, or a chosen option. */
export type ModalValue = { readonly text: string | null } | { readonly option: string };

/** A signed `view_submission` of `modal` by `user`, with `values` by block id and action id. */
export function submitModal(
  slack: SlackHarness,
  modal: OpenedModal,
  values: Record<string, Record<string, ModalValue>>,
  options: { user?: string; privateMetadata?: string } = {},
): Promise<{ status: number; text: string }> {
  const user = options.user ?? people.bob;
  const state = Object.fromEntries(
    Object.entries(values).map(([blockId, actions]) => [
      blockId,
      Object.fromEntries(
        Object.entries(actions).map(([actionId, value]) => [
          actionId,
          'text' in value
            ? { type: 'plain_text_input', value: value.text }
            : {
                type: 'static_select',
                selected_option: { value: value.option, text: { type: 'plain_text', text: value.option } },
              },
        ]),
      ),
    ]),
  );
  return slack.post({
    payload: {
      type: 'view_submission',
      team: { id: slack.api.identity.teamId, domain: 'holdfast-test' },
      user: {
        id: user,
        username: user.toLowerCase(),
        name: user.toLowerCase(),
        team_id: slack.api.identity.teamId,
      },
      api_app_id: 'A0HOLDFAST',
      token: 'legacy-verification-token',
      trigger_id: `${Date.now()}.1.submit`,
      view: {
        id: modal.id,
        team_id: slack.api.identity.teamId,
        type: 'modal',
        callback_id: modal.callbackId,
        private_metadata: options.privateMetadata ?? modal.privateMetadata,
        blocks: modal.blocks,
        state: { values: state },
        hash: '1767225000.abcdef',
        title: { type: 'plain_text', text: 'holdfast' },
        app_id: 'A0HOLDFAST',
        bot_id: slack.api.identity.botId,
      },
      response_urls: [],
      is_enterprise_install: false,
      enterprise: null,
    },
  });
}

export const denyReasonCallbackId = 'holdfast.approval.deny_reason';

/** Deny from a card (or another surface): the click, the reason modal it opens, and its submission. */
export async function denyWithReason(
  slack: SlackHarness,
  card: Pick<PostedCard, 'requestId' | 'channel' | 'ts' | 'threadTs' | 'blockId'>,
  options: { reason?: string; user?: string; from?: 'card' | 'ephemeral' | 'home' } = {},
): Promise<void> {
  const before = slack.api.callsTo('views.open').length;
  const clicked = await slack.click('deny', card, { user: options.user, from: options.from });
  if (clicked.status !== 200) throw new Error(`deny click refused: ${clicked.status}`);
  const modal = await nextModal(slack, denyReasonCallbackId, before);
  const submitted = await submitModal(
    slack,
    modal,
    { 'holdfast.deny.reason': { reason: { text: options.reason ?? null } } },
    { user: options.user },
  );
  if (submitted.status !== 200) throw new Error(`deny form refused: ${submitted.status} ${submitted.text}`);
}
