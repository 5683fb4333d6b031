import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { recordProcessFailures } from '../../support/process-failures.js';
import { channel, eventually, people, readRows, startSlackHarness, userTs } from './slack-harness.js';
import { startSocketModeServer } from './socket-mode-server.js';

/** holdfast connected over Socket Mode to a fake Slack socket, with a model that gives one answer. */
async function startOverSocketMode(answer: string) {
  const socketServer = await startSocketModeServer();
  const model = new ScriptedChatModel([reply.text(answer)]);
  const slack = await startSlackHarness({
    model,
    beforeStart: socketServer.beforeStart,
  });
  return { socketServer, model, slack };
}

describe('Socket Mode', () => {
  it('connects, acknowledges an events_api envelope, and answers the mention', async () => {
    const { socketServer, model, slack } = await startOverSocketMode('The disk is 41% full.');

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

describe('Socket Mode, given malformed envelopes', () => {
  it('drops each one, keeps its connection, and still answers the next mention', async () => {
    const { failures } = recordProcessFailures();
    const { socketServer, slack } = await startOverSocketMode('Still here.');
    const { teamId, botUserId } = slack.api.identity;
    const malformed: unknown[] = [
      null,
      42,
      'events_api',
      [],
      {},
      { type: 'events_api', envelope_id: 'e1' },
      { type: 'events_api', envelope_id: 'e2', payload: null },
      { type: 'events_api', envelope_id: 'e3', payload: { event: null } },
      { type: 'events_api', envelope_id: 'e4', payload: { event: { type: 7 } } },
      { type: 'interactive', envelope_id: 'e5', payload: null },
      { type: 'interactive', envelope_id: 'e6', payload: { type: 'block_actions', user: null, actions: [] } },
      { type: 'slash_commands', envelope_id: 'e7', payload: 'approvals' },
      // Envelope types the client would emit as its own connection events.
      { type: 'error', envelope_id: 'e8', payload: {} },
      { type: 'disconnected', envelope_id: 'e9' },
      { type: 'close', envelope_id: 'e10' },
    ];

    for (const envelope of malformed) socketServer.push(envelope);
    socketServer.pushRaw('{"type":');
    const ts = userTs();
    socketServer.push({
      envelope_id: 'f5c6c0f2-after-the-garbage',
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: '',
      payload: {
        team_id: teamId,
        api_app_id: 'A0HOLDFAST',
        event: { type: 'app_mention', user: people.alice, text: `<@${botUserId}> still there?`, ts, channel },
        type: 'event_callback',
        event_id: 'Ev0AFTERGARBAGE',
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true }],
      },
    });

    const answer = await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === ts);
    await slack.settle();

    expect(failures).toEqual([]);
    expect(answer.params).toMatchObject({ channel, text: 'Still here.' });
    expect(slack.log.entries.filter((entry) => entry.msg === 'refused a Socket Mode envelope')).toHaveLength(
      malformed.length + 1,
    );
    expect(socketServer.received.map((ack) => ack.envelope_id)).toEqual(['f5c6c0f2-after-the-garbage']);
    expect(slack.api.succeeded('apps.connections.open')).toHaveLength(1);
    expect(readRows(slack.databasePath, 'SELECT trigger_key FROM turns')).toEqual([
      { trigger_key: `${channel}:${ts}` },
    ]);
  });
});

describe('Socket Mode, when the database cannot take an event', () => {
  it('leaves the envelope unacknowledged, so Slack sends it again, and answers the redelivery', async () => {
    const { socketServer, model, slack } = await startOverSocketMode('The disk is 41% full.');
    const { teamId, botUserId } = slack.api.identity;
    const ts = userTs();
    const envelope = (envelopeId: string, retryAttempt: number) => ({
      envelope_id: envelopeId,
      type: 'events_api',
      accepts_response_payload: false,
      retry_attempt: retryAttempt,
      retry_reason: retryAttempt > 0 ? 'timeout' : '',
      payload: {
        team_id: teamId,
        api_app_id: 'A0HOLDFAST',
        event: { type: 'app_mention', user: people.alice, text: `<@${botUserId}> how full?`, ts, channel },
        type: 'event_callback',
        event_id: 'Ev0LOCKEDOUT',
        event_time: Math.floor(Date.now() / 1000),
        authorizations: [{ team_id: teamId, user_id: botUserId, is_bot: true }],
      },
    });

    // Another connection holds the write lock past busy_timeout: the save fails, nothing is written.
    const lock = new Database(slack.databasePath, { timeout: 0 });
    lock.exec('BEGIN EXCLUSIVE');
    socketServer.push(envelope('e0-first-delivery', 0));
    await slack.waitForLog((entry) => entry.msg === 'unhandled error in a Slack listener', 15_000);
    lock.exec('ROLLBACK');
    lock.close();

    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toEqual([]);
    socketServer.push(envelope('e1-redelivery', 1));
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === ts);
    await slack.settle();
    await eventually(() => socketServer.received.length > 0, 'the redelivery to be acknowledged');

    // Acks go out in order on the one socket: had the first been acknowledged, it would be first.
    expect(socketServer.received.map((ack) => ack.envelope_id)).toEqual(['e1-redelivery']);
    expect(slack.api.thread(channel, ts).map((message) => message.text)).toEqual(['The disk is 41% full.']);
    expect(model.calls).toHaveLength(1);
  });
});
