/**
 * What people do in Slack, sent to the app the way Slack sends it: signed Events API callbacks, button
 * clicks and slash commands.
 */
import { randomBytes } from 'node:crypto';
import type { FakeSlackApi } from '../../support/fake-slack-api.js';
import {
  postSignedToSlackApp,
  type SignedRequestOptions,
  type SlackRequestBody,
} from '../../support/sign-slack-request.js';
import { channel, people, userTs } from './harness-fixtures.js';

export interface SlackRequests {
  /** An Events API callback around `event`, signed and posted. */
  sendEvent(
    event: Record<string, unknown>,
    options?: { eventId?: string; retryNum?: number } & SignedRequestOptions,
  ): Promise<{ status: number; text: string }>;
  /** A channel post that mentions the bot, delivered as `app_mention`; returns its ts. */
  mention(
    text: string,
    options?: { user?: string; ts?: string; threadTs?: string; channel?: string },
  ): Promise<string>;
  /** A direct message to the bot in `channel` (a `D…` id), delivered as `message`; returns its ts. */
  direct(text: string, options: { user?: string; channel: string }): Promise<string>;
  /** A plain message in a thread, delivered as `message`; returns its ts. */
  reply(threadTs: string, text: string, options?: { user?: string }): Promise<string>;
  /**
   * A signed `block_actions` click on an approval button of a card. The action carries the block id the
   * card's buttons were posted with (`card.blockId`), the way Slack echoes it.
   */
  click(
    action: 'allow' | 'deny' | 'always' | 'edit' | 'view' | 'allow_all',
    card: { requestId: string; channel: string; ts: string; threadTs?: string; blockId?: string },
    options?: {
      user?: string;
      responseName?: string;
      /**
       * The card in the thread (default), an ephemeral `/approvals` reply, the App Home tab, or a modal
       * holdfast opened (`view`, as `views.open` returned it).
       */
      from?: 'card' | 'ephemeral' | 'home' | 'modal';
      view?: { id: string; private_metadata?: string };
      /** The Enterprise Grid organisation the click comes from. */
      enterpriseId?: string;
    },
  ): Promise<{ status: number; text: string }>;
  /** `/approvals [text]` from `user` in `channelId`. */
  command(
    text: string,
    options?: { user?: string; channel?: string; responseName?: string },
  ): Promise<{
    status: number;
    text: string;
  }>;
  /** Any body, signed (unless told otherwise) at the app's clock and posted to the events endpoint. */
  post(body: SlackRequestBody, options?: SignedRequestOptions): Promise<{ status: number; text: string }>;
  /** Seconds since the epoch by the app's clock: what Slack stamps on a request sent now. */
  nowSeconds(): number;
}

export function createSlackRequests(app: {
  readonly api: FakeSlackApi;
  readonly signingSecret: string;
  /** Where the app listens for events now (it moves when the app restarts). */
  readonly eventsUrl: () => string;
  readonly now?: () => number;
}): SlackRequests {
  const { api, signingSecret, eventsUrl } = app;
  // Slack and the app agree on the time: requests are stamped by the clock the app was given, which the
  // receiver checks them against.
  const nowSeconds = () => Math.floor((app.now ?? Date.now)() / 1000);
  const post: SlackRequests['post'] = (body, postOptions = {}) =>
    postSignedToSlackApp(eventsUrl(), signingSecret, body, {
      ...postOptions,
      timestampSeconds: postOptions.timestampSeconds ?? nowSeconds(),
    });

  const sendEvent: SlackRequests['sendEvent'] = (event, sendOptions = {}) => {
    const { eventId, retryNum, ...signed } = sendOptions;
    return post(
      {
        json: {
          token: 'legacy-verification-token',
          team_id: api.identity.teamId,
          api_app_id: 'A0HOLDFAST',
          event: { event_ts: event.ts, ...event },
          type: 'event_callback',
          event_id: eventId ?? `Ev${randomBytes(6).toString('hex').toUpperCase()}`,
          event_time: nowSeconds(),
          authorizations: [{ team_id: api.identity.teamId, user_id: api.identity.botUserId, is_bot: true }],
        },
      },
      {
        ...signed,
        headers: {
          ...signed.headers,
          ...(retryNum === undefined
            ? {}
            : { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_timeout' }),
        },
      },
    );
  };

  return {
    sendEvent,
    async mention(text, mentionOptions = {}) {
      const ts = mentionOptions.ts ?? userTs();
      const response = await sendEvent({
        type: 'app_mention',
        user: mentionOptions.user ?? people.alice,
        text: `<@${api.identity.botUserId}> ${text}`,
        ts,
        ...(mentionOptions.threadTs ? { thread_ts: mentionOptions.threadTs } : {}),
        channel: mentionOptions.channel ?? channel,
      });
      if (response.status !== 200) throw new Error(`mention refused: ${response.status} ${response.text}`);
      return ts;
    },
    async direct(text, directOptions) {
      const ts = userTs();
      const response = await sendEvent({
        type: 'message',
        user: directOptions.user ?? people.alice,
        text,
        ts,
        channel: directOptions.channel,
        channel_type: 'im',
      });
      if (response.status !== 200) throw new Error(`message refused: ${response.status} ${response.text}`);
      return ts;
    },
    async reply(threadTs, text, replyOptions = {}) {
      const ts = userTs();
      const response = await sendEvent({
        type: 'message',
        user: replyOptions.user ?? people.alice,
        text,
        ts,
        thread_ts: threadTs,
        channel,
        channel_type: 'channel',
      });
      if (response.status !== 200) throw new Error(`reply refused: ${response.status} ${response.text}`);
      return ts;
    },
    click(action, card, clickOptions = {}) {
      const user = clickOptions.user ?? people.bob;
      const from = clickOptions.from ?? 'card';
      const stored = api.message(card.channel, card.ts);
      const modal = clickOptions.view ?? { id: 'V0MODAL' };
      const where =
        from === 'home'
          ? {
              container: { type: 'view', view_id: 'V0HOME' },
              view: { id: 'V0HOME', type: 'home', team_id: api.identity.teamId },
            }
          : from === 'modal'
            ? {
                container: { type: 'view', view_id: modal.id },
                view: {
                  id: modal.id,
                  type: 'modal',
                  team_id: api.identity.teamId,
                  private_metadata: modal.private_metadata ?? '',
                },
              }
            : {
                container: {
                  type: 'message',
                  message_ts: from === 'card' ? card.ts : userTs(),
                  channel_id: card.channel,
                  is_ephemeral: from === 'ephemeral',
                  ...(card.threadTs ? { thread_ts: card.threadTs } : {}),
                },
                channel: { id: card.channel, name: 'ops' },
                message:
                  from === 'card'
                    ? {
                        type: 'message',
                        subtype: 'bot_message',
                        text: stored?.text ?? '',
                        ts: card.ts,
                        ...(card.threadTs ? { thread_ts: card.threadTs } : {}),
                        blocks: stored?.blocks ?? [],
                      }
                    : undefined,
                response_url: api.responseUrl(clickOptions.responseName ?? `click-${user}`),
              };
      const enterpriseId = clickOptions.enterpriseId;
      return post({
        payload: {
          type: 'block_actions',
          enterprise: enterpriseId ? { id: enterpriseId, name: 'Grid' } : null,
          team: {
            id: api.identity.teamId,
            domain: 'holdfast-test',
            ...(enterpriseId ? { enterprise_id: enterpriseId } : {}),
          },
          user: {
            id: user,
            username: user.toLowerCase(),
            name: user.toLowerCase(),
            team_id: api.identity.teamId,
          },
          api_app_id: 'A0HOLDFAST',
          token: 'legacy-verification-token',
          trigger_id: `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
          ...where,
          actions: [
            {
              action_id: `holdfast.approval.${action}`,
              block_id: card.blockId ?? `holdfast.approval:${card.requestId}`,
              value: card.requestId,
              type: 'button',
              action_ts: `${nowSeconds()}.000100`,
            },
          ],
        },
      });
    },
    command(text, commandOptions = {}) {
      const user = commandOptions.user ?? people.bob;
      return post({
        form: {
          token: 'legacy-verification-token',
          team_id: api.identity.teamId,
          team_domain: 'holdfast-test',
          channel_id: commandOptions.channel ?? channel,
          channel_name: 'ops',
          user_id: user,
          user_name: user.toLowerCase(),
          command: '/approvals',
          text,
          api_app_id: 'A0HOLDFAST',
          response_url: api.responseUrl(commandOptions.responseName ?? `command-${user}`),
          trigger_id: `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
        },
      });
    },
    post,
    nowSeconds,
  };
}
