import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { channel, eventually, people, startSlackHarness, userTs } from './slack-harness.js';

/** Slack's side of a Socket Mode connection: says hello, pushes envelopes, collects the acks. */
async function startSocketModeServer() {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(server, 'listening');
  const received: Array<Record<string, unknown>> = [];
  const sockets: WebSocket[] = [];
  server.on('connection', (socket) => {
    sockets.push(socket);
    socket.on('message', (data) => received.push(JSON.parse(String(data)) as Record<string, unknown>));
    socket.send(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'applink-test', approximate_connection_time: 18060 },
        connection_info: { app_id: 'A0HOLDFAST' },
      }),
    );
  });
  onTestFinished(async () => {
    for (const socket of sockets) socket.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/`,
    received,
    connected: () => sockets.length > 0,
    push(envelope: Record<string, unknown>) {
      for (const socket of sockets) socket.send(JSON.stringify(envelope));
    },
  };
}

describe('Socket Mode', () => {
  it('connects, acknowledges an events_api envelope, and answers the mention', async () => {
    const socketServer = await startSocketModeServer();
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.')]);
    const slack = await startSlackHarness({
      model,
      beforeStart: async (api) => {
        api.setSocketModeUrl(socketServer.url);
        return { SLACK_APP_TOKEN: api.appToken };
      },
    });

    expect(slack.holdfast.eventsUrl).toBeUndefined();
    const opened = slack.api.succeeded('apps.connections.open');
    expect(opened).toHaveLength(1);
    expect(opened[0]?.token).toBe(slack.api.appToken);
    expect(socketServer.connected()).toBe(true);

    const ts = userTs();
    socketServer.push({
      envelope_id: 'dbdd0ef3-1543-4f94-bfb4-133d0e6c1545',
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
      payload: {
        token: 'legacy-verification-token',
        team_id: slack.api.identity.teamId,
        api_app_id: 'A0HOLDFAST',
        event: {
          type: 'app_mention',
          user: people.alice,
          text: `<@${slack.api.identity.botUserId}> how full is the disk?`,
          ts,
          channel,
          event_ts: ts,
        },
        type: 'event_callback',
        event_id: 'Ev0SOCKET',
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [
          { team_id: slack.api.identity.teamId, user_id: slack.api.identity.botUserId, is_bot: true },
        ],
      },
    });

    const answer = await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === ts);
    await slack.settle();
    await eventually(() => socketServer.received.length > 0, 'the envelope to be acknowledged');

    expect(socketServer.received[0]).toMatchObject({ envelope_id: 'dbdd0ef3-1543-4f94-bfb4-133d0e6c1545' });
    expect(answer.params).toMatchObject({ channel, text: 'The disk is 41% full.' });
    expect(answer.token).toBe(slack.api.botToken);
    expect(model.calls).toHaveLength(1);
  });
});
