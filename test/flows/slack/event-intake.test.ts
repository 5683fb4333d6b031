import { describe, expect, it } from 'vitest';
import type { ModelReply } from '../../../src/agent/chat-model.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { postSignedToSlackApp, slackSignature } from '../../support/sign-slack-request.js';
import {
  channel,
  eventually,
  mentionEvent,
  people,
  readRows,
  startSlackHarness,
  userTs,
} from './slack-harness.js';

const handled = (ts: string, result: string) => (entry: { msg: string; [field: string]: unknown }) =>
  entry.msg === 'message event handled' && entry.ts === ts && entry.result === result;

/** Bolt checks the token with its own auth.test when it starts; anything else is the request's effect. */
const callsAfterBoot = (calls: readonly { method: string }[]) =>
  calls.filter((call) => call.method !== 'auth.test');

describe('Slack event intake', () => {
  it('refuses a request whose signature does not match, and does nothing', async () => {
    const model = new ScriptedChatModel([reply.text('never sent')]);
    const slack = await startSlackHarness({ model });
    const ts = userTs();
    const body = {
      type: 'event_callback',
      team_id: slack.api.identity.teamId,
      event_id: 'Ev0BAD',
      event: mentionEvent(slack.api.identity.botUserId, ts),
    };
    const now = Math.floor(Date.now() / 1000);

    const forged = await postSignedToSlackApp(
      slack.eventsUrl,
      slack.signingSecret,
      { json: body },
      {
        signature: slackSignature('0'.repeat(32), now, JSON.stringify(body)),
      },
    );

    expect(forged.status).toBe(401);
    await slack.settle();
    expect(model.calls).toHaveLength(0);
    expect(callsAfterBoot(slack.api.calls)).toEqual([]);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toEqual([]);
    expect(readRows(slack.databasePath, 'SELECT key FROM outbox')).toEqual([]);
  });

  it('refuses a correctly signed request older than five minutes', async () => {
    const model = new ScriptedChatModel([reply.text('never sent')]);
    const slack = await startSlackHarness({ model });
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;

    const response = await slack.sendEvent(mentionEvent(slack.api.identity.botUserId, userTs()), {
      timestampSeconds: stale,
    });

    expect(response.status).toBe(401);
    await slack.settle();
    expect(model.calls).toHaveLength(0);
    expect(callsAfterBoot(slack.api.calls)).toEqual([]);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toEqual([]);
  });

  it('answers a mention once in its thread', async () => {
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.')]);
    const slack = await startSlackHarness({ model });

    const threadTs = await slack.mention('how full is the disk?');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === threadTs);
    await slack.settle();

    expect(slack.api.thread(channel, threadTs).map((message) => message.text)).toEqual([
      'The disk is 41% full.',
    ]);
    expect(model.calls[0]?.messages.at(-1)).toEqual({
      role: 'user',
      content: '@alice: how full is the disk?',
    });
    // A quick answer gets no hourglass that would appear and vanish: just the tick.
    const reactions = slack.api.succeeded('reactions.add').map((call) => call.params.name);
    expect(reactions).toEqual(['white_check_mark']);
  });

  it('shows a turn that takes a while as working, then done', async () => {
    let answer: (value: ModelReply) => void = () => {};
    const model = new ScriptedChatModel([
      () =>
        new Promise<ModelReply>((resolve) => {
          answer = resolve;
        }),
    ]);
    const slack = await startSlackHarness({ model, workingAfterMs: 50 });

    const threadTs = await slack.mention('how full is the disk?');
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'hourglass_flowing_sand');
    answer(reply.text('The disk is 41% full.'));
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === threadTs);
    await slack.settle();

    expect(slack.api.succeeded('reactions.add').map((call) => call.params.name)).toEqual([
      'hourglass_flowing_sand',
      'white_check_mark',
    ]);
    expect(slack.api.succeeded('reactions.remove').map((call) => call.params.name)).toEqual([
      'hourglass_flowing_sand',
    ]);
  });

  it('holds the hourglass back while the process is behind, and shows it once it catches up', async () => {
    let answer: (value: ModelReply) => void = () => {};
    const model = new ScriptedChatModel([
      () =>
        new Promise<ModelReply>((resolve) => {
          answer = resolve;
        }),
    ]);
    let behind = true;
    let looked = 0;
    let lookedTwice: () => void = () => {};
    const twice = new Promise<void>((resolve) => {
      lookedTwice = resolve;
    });
    const busy = () => {
      looked += 1;
      if (looked === 2) lookedTwice();
      return behind;
    };
    const slack = await startSlackHarness({
      model,
      workingAfterMs: 50,
      live: { showAfterMs: Number.POSITIVE_INFINITY, busy },
    });

    const threadTs = await slack.mention('how full is the disk?');
    await twice;
    expect(slack.api.callsTo('reactions.add')).toEqual([]);
    behind = false;
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'hourglass_flowing_sand');
    answer(reply.text('The disk is 41% full.'));
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === threadTs);
    await slack.settle();

    expect(slack.api.succeeded('reactions.add').map((call) => call.params.name)).toEqual([
      'hourglass_flowing_sand',
      'white_check_mark',
    ]);
  });

  it('answers a person who already has too many requests waiting privately, once, and queues nothing', async () => {
    // The first request stays in its model call (until shutdown aborts it): alice has one unfinished.
    const model = new ScriptedChatModel([
      (request) =>
        new Promise((_, reject) =>
          request.signal?.addEventListener('abort', () => reject(request.signal?.reason)),
        ),
    ]);
    const slack = await startSlackHarness({ model, env: { HOLDFAST_MAX_TURNS_PER_USER: '1' } });

    await slack.mention('first: check the disk');
    const second = await slack.mention('second: and the memory');
    const refusal = await slack.api.waitFor(
      'chat.postEphemeral',
      (call) => call.params.user === people.alice,
    );

    expect(refusal.params).toMatchObject({ channel });
    expect(String(refusal.params.text)).toBe(
      'You already have 1 requests waiting or running, so holdfast did not take this one. ' +
        'Send it again once some of them finish (`/approvals` shows what waits for a decision).',
    );
    // The mention arrives as a message/app_mention pair; the person is answered once.
    await slack.sendEvent({
      type: 'message',
      user: people.alice,
      text: `<@${slack.api.identity.botUserId}> second: and the memory`,
      ts: second,
      channel,
    });
    await slack.waitForLog(handled(second, 'refused'));
    expect(slack.api.callsTo('chat.postEphemeral')).toHaveLength(1);
    expect(readRows(slack.databasePath, 'SELECT count(*) AS n FROM turns')).toEqual([{ n: 1 }]);
    expect(
      readRows(slack.databasePath, "SELECT actor FROM audit_events WHERE kind = 'turn.refused'"),
    ).toEqual([{ actor: people.alice }]);
  });

  it('acknowledges a message once it is kept, before Slack answers any lookup, and keeps a thread in order', async () => {
    const model = new ScriptedChatModel([reply.text('First.'), reply.text('Second.')]);
    const slack = await startSlackHarness({ model });
    const aliceName = slack.api.holdNext('users.info', (call) => call.params.user === people.alice);

    // Each mention is answered 200 while Slack still holds alice's name.
    const root = await slack.mention('first: how full is the disk?');
    await aliceName.arrived;
    await slack.mention('second: and the memory?', { threadTs: root, user: people.bob });
    expect(readRows(slack.databasePath, 'SELECT count(*) AS n FROM inbound_messages')).toEqual([{ n: 2 }]);
    // Bob's name needs no wait, but his message is second in the thread: it waits for alice's to be a turn.
    expect(readRows(slack.databasePath, 'SELECT count(*) AS n FROM turns')).toEqual([{ n: 0 }]);

    aliceName.release();
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Second.');
    await slack.settle();

    // (Alice's name, or her id had the held lookup outlasted the intake's one-second patience.)
    const asked = model.calls.map((call) => call.messages.filter((m) => m.role === 'user').at(-1)?.content);
    expect(asked).toEqual([
      expect.stringMatching(/^@(alice|U0ALICE): first: how full is the disk\?$/),
      '@bob: second: and the memory?',
    ]);
    expect(readRows(slack.databasePath, 'SELECT input_text FROM turns ORDER BY seq')).toEqual(
      asked.map((text) => ({ input_text: text })),
    );
    expect(readRows(slack.databasePath, 'SELECT count(*) AS n FROM inbound_messages')).toEqual([{ n: 0 }]);
  });

  it('runs one turn when Slack retries the same event', async () => {
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.'), reply.text('twice?')]);
    const slack = await startSlackHarness({ model });
    const ts = userTs();
    const event = mentionEvent(slack.api.identity.botUserId, ts);

    expect((await slack.sendEvent(event, { eventId: 'Ev0RETRIED' })).status).toBe(200);
    await slack.waitForLog(handled(ts, 'queued'));
    expect((await slack.sendEvent(event, { eventId: 'Ev0RETRIED', retryNum: 1 })).status).toBe(200);
    expect((await slack.sendEvent(event, { eventId: 'Ev0RETRIED', retryNum: 2 })).status).toBe(200);
    await eventually(
      () => slack.log.entries.filter(handled(ts, 'duplicate')).length === 2,
      'both retries to be handled',
    );
    await slack.settle();

    expect(model.calls).toHaveLength(1);
    expect(readRows(slack.databasePath, 'SELECT trigger_key FROM turns')).toEqual([
      { trigger_key: `${channel}:${ts}` },
    ]);
    expect(slack.api.thread(channel, ts).map((message) => message.text)).toEqual(['The disk is 41% full.']);
  });

  it('runs one turn for the message and app_mention twins of one post', async () => {
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.'), reply.text('twice?')]);
    const slack = await startSlackHarness({ model });
    const ts = userTs();
    const mention = mentionEvent(slack.api.identity.botUserId, ts);

    const [asMessage, asMention] = await Promise.all([
      slack.sendEvent({ ...mention, type: 'message', channel_type: 'channel' }, { eventId: 'Ev0TWIN1' }),
      slack.sendEvent(mention, { eventId: 'Ev0TWIN2' }),
    ]);
    expect([asMessage.status, asMention.status]).toEqual([200, 200]);
    await slack.waitForLog(handled(ts, 'queued'));
    await slack.waitForLog(handled(ts, 'duplicate'));
    await slack.settle();

    expect(model.calls).toHaveLength(1);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toHaveLength(1);
    expect(slack.api.thread(channel, ts).map((message) => message.text)).toEqual(['The disk is 41% full.']);
  });

  it('answers a direct message in its own thread and leaves no working status behind', async () => {
    const model = new ScriptedChatModel([reply.text('The disk is 41% full.')]);
    const slack = await startSlackHarness({ model, workingAfterMs: 0 });
    const ts = userTs();

    await slack.sendEvent({
      type: 'message',
      user: people.alice,
      text: 'how full is the disk?',
      ts,
      channel: 'D0ALICE',
      channel_type: 'im',
    });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.channel === 'D0ALICE');
    await slack.settle();

    expect(slack.api.thread('D0ALICE', ts).map((message) => message.text)).toEqual(['The disk is 41% full.']);
    // Whether the working status went out before the answer superseded it is a race; either way the
    // session does not stay on it.
    for (const call of slack.api.succeeded('agents.sessions.setStatus'))
      expect(call.params).toMatchObject({ channel_id: 'D0ALICE', thread_ts: ts });
    expect(['active', undefined]).toContain(slack.api.sessionStatus('D0ALICE', ts));
    expect(slack.api.assistantStatus('D0ALICE', ts)).toBe('');
  });

  it('ignores its own posts and other bots', async () => {
    const model = new ScriptedChatModel([reply.text('never sent')]);
    const slack = await startSlackHarness({ model });
    const threadTs = userTs();
    const botTs = userTs();
    const otherBotTs = userTs();

    await slack.sendEvent({
      type: 'message',
      user: slack.api.identity.botUserId,
      text: `<@${slack.api.identity.botUserId}> echo`,
      ts: botTs,
      thread_ts: threadTs,
      channel,
    });
    await slack.sendEvent({
      type: 'message',
      subtype: 'bot_message',
      bot_id: 'B0OTHER',
      text: `<@${slack.api.identity.botUserId}> deploy everything`,
      ts: otherBotTs,
      channel,
    });
    await slack.waitForLog(handled(otherBotTs, 'ignored'));
    await slack.settle();

    expect(model.calls).toHaveLength(0);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toEqual([]);
  });
});
