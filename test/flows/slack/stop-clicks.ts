/** Stop buttons of a running turn, and signed clicks on them the way Slack sends them. */
import type { SlackApiCall } from '../../support/fake-slack-api.js';
import { channel, type SlackHarness } from './slack-harness.js';

/** The Stop button the live message carries (in its stream's blocks chunk). */
export function stopButtonOf(call: SlackApiCall): { value: string } | undefined {
  const chunks = Array.isArray(call.params.chunks)
    ? (call.params.chunks as Array<Record<string, unknown>>)
    : [];
  for (const chunk of chunks) {
    if (chunk.type !== 'blocks') continue;
    for (const block of chunk.blocks as Array<{ elements?: Array<Record<string, unknown>> }>) {
      const button = block.elements?.find((element) => element.action_id === 'holdfast.turn.stop');
      if (button) return { value: String(button.value) };
    }
  }
  return undefined;
}

/**
 * A `block_actions` payload for a Stop button, the way Slack sends it; `where` is what differs between a
 * message's button and an ephemeral reply's (its container, message and response URL).
 */
function stopClick(
  slack: SlackHarness,
  turnId: string,
  user: string,
  where: {
    readonly container: Record<string, unknown>;
    readonly message?: Record<string, unknown>;
    readonly responseUrl: string;
    readonly blockId: string;
  },
) {
  return {
    payload: {
      type: 'block_actions',
      team: { id: slack.api.identity.teamId, domain: 'holdfast-test' },
      user: { id: user, username: user.toLowerCase(), team_id: slack.api.identity.teamId },
      api_app_id: 'A0HOLDFAST',
      token: 'legacy-verification-token',
      trigger_id: '1.1.stop',
      container: where.container,
      channel: { id: channel, name: 'ops' },
      ...(where.message ? { message: where.message } : {}),
      response_url: where.responseUrl,
      actions: [
        {
          type: 'button',
          action_id: 'holdfast.turn.stop',
          block_id: where.blockId,
          value: turnId,
          action_ts: '1.2',
        },
      ],
    },
  };
}

/** A signed click on the Stop button, the way Slack sends it. */
export function clickStop(
  slack: SlackHarness,
  turnId: string,
  user: string,
  streamTs: string,
  threadTs: string,
  post: SlackHarness['post'] = slack.post,
) {
  return post(
    stopClick(slack, turnId, user, {
      container: { type: 'message', message_ts: streamTs, channel_id: channel, thread_ts: threadTs },
      message: { type: 'message', ts: streamTs, thread_ts: threadTs, text: '' },
      responseUrl: slack.api.responseUrl(`stop-${user}`),
      blockId: 'holdfast.turn',
    }),
  );
}

/** The Stop buttons of an ephemeral reply, by the turn they stop. */
export function stopButtonsIn(body: Record<string, unknown>): string[] {
  const blocks = Array.isArray(body.blocks) ? (body.blocks as Array<Record<string, unknown>>) : [];
  return blocks.flatMap((block) => {
    const accessory = block.accessory as { action_id?: string; value?: string } | undefined;
    return accessory?.action_id === 'holdfast.turn.stop' ? [String(accessory.value)] : [];
  });
}

/** A Stop click from the ephemeral `/approvals` reply: Slack sends no message with it. */
export function clickStopInReply(slack: SlackHarness, turnId: string, user: string) {
  return slack.post(
    stopClick(slack, turnId, user, {
      container: {
        type: 'message',
        message_ts: '1700000000.000900',
        channel_id: channel,
        is_ephemeral: true,
      },
      responseUrl: slack.api.responseUrl(`inbox-stop-${user}`),
      blockId: 'stop',
    }),
  );
}
