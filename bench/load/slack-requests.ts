import {
  encodeSlackBody,
  type SlackRequestBody,
  slackSignature,
} from '../../test/support/sign-slack-request.js';
import type { PostedCard } from './load-slack-api.js';

/** How long Slack waits for a response before it counts a delivery as failed. */
export const slackTimeoutMs = 3_000;

/**
 * What became of one delivery: the app's HTTP status, or why there was none (`timeout` when the app
 * took longer than Slack waits, an error code when the connection failed).
 */
export type DeliveryOutcome = { readonly status: number } | { readonly failure: string };

/** POSTs a signed request the way Slack does, giving up after Slack's three seconds. */
export async function deliverToApp(
  url: string,
  signingSecret: string,
  body: SlackRequestBody,
  headers: Record<string, string> = {},
): Promise<DeliveryOutcome> {
  const { text, contentType } = encodeSlackBody(body);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': slackSignature(signingSecret, timestamp, text),
        ...headers,
      },
      body: text,
      signal: AbortSignal.timeout(slackTimeoutMs),
    });
    await response.arrayBuffer();
    // A response that beat the abort only because this process was slow to fire it is late all the same.
    if (performance.now() - started > slackTimeoutMs) return { failure: 'timeout' };
    return { status: response.status };
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError') return { failure: 'timeout' };
    const cause = (error as { cause?: { code?: unknown } }).cause;
    return { failure: typeof cause?.code === 'string' ? cause.code : String(error) };
  }
}

/** `200`, `404`, `timeout`, `ECONNRESET`: one word for the report. */
export function outcomeName(outcome: DeliveryOutcome): string {
  return 'status' in outcome ? String(outcome.status) : outcome.failure;
}

/** The Events API callback Slack sends when someone mentions the bot (in a thread, after the first). */
export function mentionEvent(options: {
  readonly teamId: string;
  readonly botUserId: string;
  readonly channel: string;
  readonly user: string;
  readonly text: string;
  readonly ts: string;
  readonly threadTs: string | undefined;
  readonly eventId: string;
}): SlackRequestBody {
  return {
    json: {
      token: 'legacy-verification-token',
      team_id: options.teamId,
      api_app_id: 'A0LOAD',
      event: {
        type: 'app_mention',
        user: options.user,
        text: `<@${options.botUserId}> ${options.text}`,
        ts: options.ts,
        ...(options.threadTs ? { thread_ts: options.threadTs } : {}),
        channel: options.channel,
        event_ts: options.ts,
      },
      type: 'event_callback',
      event_id: options.eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: options.teamId, user_id: options.botUserId, is_bot: true }],
    },
  };
}

/** A tap on Allow on a card in its thread, as Slack sends the `block_actions` payload. */
export function allowClick(options: {
  readonly teamId: string;
  readonly user: string;
  readonly card: PostedCard;
  readonly responseUrl: string;
}): SlackRequestBody {
  const { card } = options;
  return {
    payload: {
      type: 'block_actions',
      enterprise: null,
      team: { id: options.teamId, domain: 'load' },
      user: { id: options.user, username: 'approver', name: 'approver', team_id: options.teamId },
      api_app_id: 'A0LOAD',
      token: 'legacy-verification-token',
      trigger_id: `${Date.now()}.1.load`,
      container: {
        type: 'message',
        message_ts: card.ts,
        channel_id: card.channel,
        is_ephemeral: false,
        thread_ts: card.threadTs,
      },
      channel: { id: card.channel, name: 'load' },
      message: {
        type: 'message',
        subtype: 'bot_message',
        text: card.text,
        ts: card.ts,
        thread_ts: card.threadTs,
        blocks: card.blocks,
      },
      response_url: options.responseUrl,
      actions: [
        {
          action_id: 'holdfast.approval.allow',
          block_id: card.blockId,
          value: card.requestId,
          type: 'button',
          action_ts: `${Math.floor(Date.now() / 1000)}.000100`,
        },
      ],
    },
  };
}
