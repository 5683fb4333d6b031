import { request } from 'node:http';
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { failWalSyncs } from '../../support/fail-wal-syncs.js';
import { slackSignature } from '../../support/sign-slack-request.js';
import {
  channel,
  eventually,
  mentionEvent,
  people,
  readRows,
  startSlackHarness,
  userTs,
} from './slack-harness.js';

/**
 * HTTP mode's intake thread (on by default): message events are verified, kept and acknowledged beside
 * the main thread; everything else is passed on to Bolt's receiver behind it.
 */
describe('the intake thread', () => {
  it('keeps a mention and answers Slack while the main thread is blocked, then makes it one turn', async () => {
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.')]);
    const slack = await startSlackHarness({ model });
    const ts = userTs();
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: slack.api.identity.teamId,
      event_id: 'Ev0BLOCKED',
      event: mentionEvent(slack.api.identity.botUserId, ts),
    });
    const answer = sendRaw(slack.eventsUrl, slack.signingSecret, body);
    await answer.sent;

    // Nothing on this thread runs until the row is seen: the keep and its fsync happen beside it.
    const reader = new Database(slack.databasePath, { readonly: true });
    onTestFinished(() => void reader.close());
    const kept = reader.prepare('SELECT key FROM inbound_messages');
    const deadline = Date.now() + 10_000;
    let rows: unknown[] = [];
    while (rows.length === 0 && Date.now() < deadline) rows = kept.all();
    expect(rows).toEqual([{ key: `${slack.api.identity.teamId}:${channel}:${ts}:app_mention` }]);

    expect(await answer.status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === ts);
    await slack.settle();
    expect(slack.api.thread(channel, ts).map((message) => message.text)).toEqual(['The disk is 41% full.']);
    expect(readRows(slack.databasePath, 'SELECT count(*) AS n FROM inbound_messages')).toEqual([{ n: 0 }]);
    expect(readRows(slack.databasePath, 'SELECT trigger_ts FROM turns')).toEqual([{ trigger_ts: ts }]);
  });

  it('keeps a plain reply in a thread holdfast is part of, and only there, on its own', async () => {
    const model = new ScriptedChatModel([
      reply.text('The disk is 41% full.'),
      reply.text('It was 40% yesterday.'),
    ]);
    const slack = await startSlackHarness({ model });
    const root = await slack.mention('how full is the disk?');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === root);
    await slack.settle();
    const reader = new Database(slack.databasePath, { readonly: true });
    onTestFinished(() => void reader.close());
    const kept = reader.prepare('SELECT key FROM inbound_messages');

    const known = sendRaw(slack.eventsUrl, slack.signingSecret, replyBody(slack.api.identity.teamId, root));
    await known.sent;
    const deadline = Date.now() + 10_000;
    let rows: unknown[] = [];
    while (rows.length === 0 && Date.now() < deadline) rows = kept.all();
    expect(rows).toHaveLength(1);
    expect(await known.status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'It was 40% yesterday.');

    // A thread holdfast was never asked in: acknowledged, nothing kept, no turn.
    const stranger = userTs();
    expect(
      (await slack.post({ json: JSON.parse(replyBody(slack.api.identity.teamId, stranger)) })).status,
    ).toBe(200);
    await slack.settle();
    expect(kept.all()).toEqual([]);
    expect(model.calls).toHaveLength(2);
  });

  it('answers 500 and keeps nothing while the database cannot take a message; the redelivery is one turn', async () => {
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.'), reply.text('twice?')]);
    const slack = await startSlackHarness({ model });
    const ts = userTs();
    const event = mentionEvent(slack.api.identity.botUserId, ts);
    const schema = new Database(slack.databasePath);
    onTestFinished(() => void schema.close());
    schema.exec('ALTER TABLE inbound_messages RENAME TO inbound_messages_away');

    expect((await slack.sendEvent(event, { eventId: 'Ev0AWAY' })).status).toBe(500);
    await slack.waitForLog((entry) => entry.msg === 'could not keep a message event');
    await slack.settle();
    expect(model.calls).toHaveLength(0);
    expect(readRows(slack.databasePath, 'SELECT count(*) AS n FROM inbound_messages_away')).toEqual([
      { n: 0 },
    ]);

    schema.exec('ALTER TABLE inbound_messages_away RENAME TO inbound_messages');
    expect((await slack.sendEvent(event, { eventId: 'Ev0AWAY', retryNum: 1 })).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === ts);
    await slack.settle();
    expect(model.calls).toHaveLength(1);
    expect(slack.api.thread(channel, ts).map((message) => message.text)).toEqual(['The disk is 41% full.']);
  });

  it('writes nothing more once a WAL sync has failed on the main thread, and the restart answers both', async () => {
    const model = new ScriptedChatModel([
      reply.text('An answer.'),
      reply.text('An answer.'),
      reply.text('An answer.'),
    ]);
    const slack = await startSlackHarness({ model });
    const origin = new URL(slack.eventsUrl).origin;
    const mention = (ts: string) => mentionEvent(slack.api.identity.botUserId, ts);
    // Only the main thread's syncs fail: the intake thread's own succeed, and still it must stop.
    const failing = failWalSyncs();

    const first = userTs();
    expect((await slack.sendEvent(mention(first), { eventId: 'Ev0SYNC1' })).status).toBe(200);
    // Its turn's commit is the main thread's: that sync fails.
    await eventually(
      () => slack.log.entries.some((entry) => entry.msg === 'could not make a kept message a turn'),
      'the turn to fail',
    );
    failing.restore();
    const second = userTs();
    expect((await slack.sendEvent(mention(second), { eventId: 'Ev0SYNC2' })).status).toBe(500);
    expect(readRows(slack.databasePath, 'SELECT key FROM inbound_messages')).not.toContainEqual({
      key: `${slack.api.identity.teamId}:${channel}:${second}:app_mention`,
    });
    expect((await fetch(`${origin}/health`)).status).toBe(503);
    // The turn starts at its commit, so it may have asked its model while that commit's sync failed; what
    // it had to show went nowhere.
    expect(model.calls.length).toBeLessThanOrEqual(1);
    const before = model.calls.length;
    await slack.settle();
    expect(slack.api.thread(channel, first)).toEqual([]);
    expect(
      readRows(slack.databasePath, "SELECT count(*) AS n FROM messages WHERE role = 'assistant'"),
    ).toEqual([{ n: 0 }]);

    // A restart opens the file afresh: the first mention, kept, is found; the second is redelivered.
    await slack.restart({ model });
    expect((await slack.sendEvent(mention(second), { eventId: 'Ev0SYNC2', retryNum: 1 })).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === second);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === first);
    await slack.settle();
    expect(model.calls).toHaveLength(before + 2);
    expect([first, second].map((ts) => slack.api.thread(channel, ts).map((message) => message.text))).toEqual(
      [['An answer.'], ['An answer.']],
    );
    expect(readRows(slack.databasePath, 'SELECT trigger_ts FROM turns ORDER BY trigger_ts')).toEqual(
      [first, second].sort().map((ts) => ({ trigger_ts: ts })),
    );
  });

  it('passes the health check and unknown paths on to the app behind it', async () => {
    const slack = await startSlackHarness({ model: new ScriptedChatModel([]) });
    const origin = new URL(slack.eventsUrl).origin;

    const health = await fetch(`${origin}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    expect((await fetch(`${origin}/nowhere`)).status).toBe(404);
    // A url_verification handshake is not a message: Bolt answers it, as before.
    const challenge = await slack.post({
      json: { type: 'url_verification', challenge: 'c-123', token: 'x' },
    });
    expect(challenge.status).toBe(200);
    expect(challenge.text).toContain('c-123');
  });
});

/** A reply without a mention, in the thread that starts at `threadTs`. */
function replyBody(teamId: string, threadTs: string): string {
  return JSON.stringify({
    type: 'event_callback',
    team_id: teamId,
    event_id: `Ev0REPLY${threadTs.replace('.', '')}`,
    event: {
      type: 'message',
      user: people.bob,
      text: 'and yesterday?',
      ts: userTs(),
      thread_ts: threadTs,
      channel,
    },
  });
}

/** A signed POST whose bytes are known to have left this thread (`sent`) before its answer is awaited. */
function sendRaw(url: string, signingSecret: string, body: string) {
  const timestamp = Math.floor(Date.now() / 1000);
  let markSent: () => void = () => undefined;
  const sent = new Promise<void>((resolve) => {
    markSent = resolve;
  });
  const status = new Promise<number>((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(signingSecret, timestamp, body),
        },
      },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.once('error', reject);
    outgoing.end(body, markSent);
  });
  return { sent, status };
}
