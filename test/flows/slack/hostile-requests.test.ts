import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { recordProcessFailures } from '../../support/process-failures.js';
import type { SlackRequestBody } from '../../support/sign-slack-request.js';
import { createTestClock } from '../../support/test-clock.js';
import { channel, people, readRows, type SlackHarness, startSlackHarness, userTs } from './slack-harness.js';

const form = (text: string): SlackRequestBody => ({
  raw: text,
  contentType: 'application/x-www-form-urlencoded',
});
const json = (text: string): SlackRequestBody => ({ raw: text, contentType: 'application/json' });

/** A mention after the hostile request is answered: the app is still up and serving. */
async function expectStillServing(slack: SlackHarness): Promise<void> {
  const threadTs = await slack.mention('are you still there?');
  await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === threadTs);
  await slack.settle();
  expect(slack.api.thread(channel, threadTs).map((message) => message.text)).toEqual(['Still here.']);
}

const refusedLine = (status: number) => (entry: { msg: string; [field: string]: unknown }) =>
  entry.msg === 'refused a Slack request' && entry.status === status;

describe('the Slack receiver, given a signed body that is not a Slack request', () => {
  const notRequests: Array<[string, SlackRequestBody]> = [
    ['JSON null', json('null')],
    ['payload=null', form('payload=null')],
    ['a JSON number', json('42')],
    ['a JSON array', json('[{"type":"event_callback"}]')],
    ['a JSON string', json('"event_callback"')],
    ['a payload that is a number', form('payload=7')],
    ['a payload that is an array', form(`payload=${encodeURIComponent('[{"type":"block_actions"}]')}`)],
    ['a payload that is a string', form(`payload=${encodeURIComponent('"block_actions"')}`)],
    ['a payload given twice', form('payload=%7B%7D&payload=%7B%7D')],
    ['an event that is null', json('{"type":"event_callback","event":null}')],
    [
      'block actions that are not a list',
      form(`payload=${encodeURIComponent('{"type":"block_actions","user":{"id":"U0BOB"},"actions":5}')}`),
    ],
  ];

  it.each(notRequests)('answers %s with 400, logs it, and keeps serving', async (_name, body) => {
    const { failures } = recordProcessFailures();
    const model = new ScriptedChatModel([reply.text('Still here.')]);
    const slack = await startSlackHarness({ model });

    const response = await slack.post(body);

    expect(response.status).toBe(400);
    expect(slack.log.entries.filter(refusedLine(400))).toHaveLength(1);
    await expectStillServing(slack);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toHaveLength(1);
    expect(failures).toEqual([]);
  });

  it('answers a body over one megabyte with 413 and keeps serving', async () => {
    const { failures } = recordProcessFailures();
    const model = new ScriptedChatModel([reply.text('Still here.')]);
    const slack = await startSlackHarness({ model });
    const huge = JSON.stringify({ type: 'event_callback', padding: 'x'.repeat(2 * 1024 * 1024) });

    const response = await slack.post(json(huge));

    expect(response.status).toBe(413);
    expect(slack.log.entries.filter(refusedLine(413))).toHaveLength(1);
    await expectStillServing(slack);
    expect(failures).toEqual([]);
  });

  it('acknowledges an event it cannot process (a channel that is null), queues nothing, and keeps serving', async () => {
    const model = new ScriptedChatModel([reply.text('Still here.')]);
    const slack = await startSlackHarness({ model });
    const event = {
      type: 'app_mention',
      user: people.alice,
      text: `<@${slack.api.identity.botUserId}> deploy`,
      ts: userTs(),
      channel: null,
    };

    // Redelivering it would fail the same way: only a save that failed is refused for Slack to retry.
    const response = await slack.post(
      json(
        JSON.stringify({
          type: 'event_callback',
          team_id: slack.api.identity.teamId,
          event_id: 'Ev0NULL',
          event,
        }),
      ),
    );

    expect(response.status).toBe(200);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toHaveLength(0);
    await expectStillServing(slack);
  });

  it('still answers the health check', async () => {
    const slack = await startSlackHarness({ model: new ScriptedChatModel([]) });
    expect((await slack.post(json('null'))).status).toBe(400);

    const health = await fetch(new URL('/health', slack.eventsUrl));

    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
  });
});

describe('the Slack receiver, given a request timestamp', () => {
  const minutes = (count: number) => count * 60;

  it('refuses a correctly signed request stamped six minutes in the future, and queues nothing', async () => {
    const clock = createTestClock(Date.now());
    const model = new ScriptedChatModel([reply.text('never sent')]);
    const slack = await startSlackHarness({ model, now: clock.now });
    const ts = userTs();

    const response = await slack.sendEvent(
      { type: 'app_mention', user: people.alice, text: `<@${slack.api.identity.botUserId}> hi`, ts, channel },
      { timestampSeconds: slack.nowSeconds() + minutes(6) },
    );

    expect(response.status).toBe(401);
    expect(slack.log.entries.filter(refusedLine(401))).toHaveLength(1);
    await slack.settle();
    expect(model.calls).toHaveLength(0);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toEqual([]);
    expect(readRows(slack.databasePath, 'SELECT key FROM outbox')).toEqual([]);
  });

  it("refuses a request stamped six minutes before the app's clock", async () => {
    const clock = createTestClock(Date.now());
    const model = new ScriptedChatModel([reply.text('never sent')]);
    const slack = await startSlackHarness({ model, now: clock.now });
    const stamped = slack.nowSeconds();
    clock.advance(minutes(6) * 1000);

    const response = await slack.sendEvent(
      {
        type: 'app_mention',
        user: people.alice,
        text: `<@${slack.api.identity.botUserId}> hi`,
        ts: userTs(),
        channel,
      },
      { timestampSeconds: stamped },
    );

    expect(response.status).toBe(401);
    await slack.settle();
    expect(model.calls).toHaveLength(0);
    expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toEqual([]);
  });

  it.each([
    ['four minutes ahead', minutes(4)],
    ['four minutes behind', -minutes(4)],
  ])('accepts a request stamped %s', async (_name, offset) => {
    const clock = createTestClock(Date.now());
    const model = new ScriptedChatModel([reply.text('On it.')]);
    const slack = await startSlackHarness({ model, now: clock.now });
    const ts = userTs();

    const response = await slack.sendEvent(
      { type: 'app_mention', user: people.alice, text: `<@${slack.api.identity.botUserId}> hi`, ts, channel },
      { timestampSeconds: slack.nowSeconds() + offset },
    );

    expect(response.status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === ts);
    await slack.settle();
    expect(readRows(slack.databasePath, 'SELECT trigger_key FROM turns')).toEqual([
      { trigger_key: `${channel}:${ts}` },
    ]);
  });
});
