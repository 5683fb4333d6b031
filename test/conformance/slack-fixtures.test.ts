import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../src/llm/scripted-chat-model.js';
import { readRows, type SlackHarness, startSlackHarness } from '../flows/slack/slack-harness.js';
import { startFakeSlackApi } from '../support/fake-slack-api.js';
import { postSignedToSlackApp, type SlackRequestBody } from '../support/sign-slack-request.js';

import { loadSpecChecks, projectRoot, specIsPresent } from './slack-openapi.js';

/**
 * Real Slack payloads, kept beside the project rather than in it, replayed byte for byte through Bolt's
 * real HTTP receiver with a correct v0 signature. Each must be routed (its effect observed) or refused
 * cleanly (200, nothing changed, no unhandled error). A missing fixture directory fails the suite.
 */
const fixturesDir = path.resolve(projectRoot, '..', 'shared', 'fixtures', 'slack');
const fixtureFiles = existsSync(fixturesDir) ? readdirSync(fixturesDir).sort() : [];

const fixture = (name: string) => readFileSync(path.join(fixturesDir, name), 'utf8');
const fixtureJson = (name: string) => JSON.parse(fixture(name)) as Record<string, unknown>;

function send(slack: SlackHarness, body: SlackRequestBody) {
  return postSignedToSlackApp(slack.eventsUrl, slack.signingSecret, body);
}

function rawForm(text: string): SlackRequestBody {
  return { raw: text, contentType: 'application/x-www-form-urlencoded' };
}

/** A fixture form body with some fields swapped (our command, our action id, a local response_url). */
function editedForm(text: string, edit: (fields: URLSearchParams) => void): SlackRequestBody {
  const fields = new URLSearchParams(text);
  edit(fields);
  return rawForm(fields.toString());
}

/** Nothing was started and no listener failed: the request was refused cleanly. */
async function expectNothingHappened(slack: SlackHarness): Promise<void> {
  await slack.settle();
  expect(readRows(slack.databasePath, 'SELECT id FROM turns')).toEqual([]);
  expect(slack.api.calls.filter((call) => call.method === 'chat.postMessage')).toEqual([]);
  expect(slack.log.entries.filter((entry) => entry.msg === 'unhandled error in a Slack listener')).toEqual(
    [],
  );
}

const quietModel = () => new ScriptedChatModel([]);

type Replay = () => Promise<void>;

const replays: Record<string, Replay> = {
  async 'url_verification.json'() {
    const slack = await startSlackHarness({ model: quietModel() });
    const body = fixture('url_verification.json');

    const response = await send(slack, { raw: body, contentType: 'application/json' });

    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({ challenge: fixtureJson('url_verification.json').challenge });
  },

  async 'vercel_replay_channel_message_mention_and_thread_reply.json'() {
    const recorded = fixtureJson('vercel_replay_channel_message_mention_and_thread_reply.json') as {
      botUserId: string;
      mention: { team_id: string; event: { ts: string; channel: string } };
      followUp: Record<string, unknown>;
    };
    const model = new ScriptedChatModel([reply.text('Hello!'), reply.text('Hi again.')]);
    const slack = await startSlackHarness({
      model,
      identity: { botUserId: recorded.botUserId, teamId: recorded.mention.team_id },
    });
    const { ts: threadTs, channel } = recorded.mention.event;

    expect((await send(slack, { json: recorded.mention })).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Hello!');
    await slack.settle();
    expect((await send(slack, { json: recorded.followUp })).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Hi again.');
    await slack.settle();

    expect(slack.api.thread(channel, threadTs).map((message) => message.text)).toEqual([
      'Hello!',
      'Hi again.',
    ]);
    expect(readRows(slack.databasePath, 'SELECT conversation_id, status FROM turns ORDER BY seq')).toEqual([
      { conversation_id: `${recorded.mention.team_id}:${channel}:${threadTs}`, status: 'completed' },
      { conversation_id: `${recorded.mention.team_id}:${channel}:${threadTs}`, status: 'completed' },
    ]);
    expect(model.calls[1]?.messages.at(-1)).toEqual({ role: 'user', content: '@U00FAKEUSER1: Hi' });
  },

  async 'java_sdk_sample_app_mention_event_callback_all_fields.json'() {
    const slack = await startSlackHarness({ model: quietModel() });
    const body = fixture('java_sdk_sample_app_mention_event_callback_all_fields.json');

    const response = await send(slack, { raw: body, contentType: 'application/json' });

    expect(response.status).toBe(200);
    // Every field is blank: no user, no team, no ts. The intake refuses it rather than guessing.
    await slack.waitForLog((entry) => String(entry.msg).startsWith('ignoring a'));
    await expectNothingHappened(slack);
  },

  async 'java_sdk_sample_message_changed_event_all_fields.json'() {
    const slack = await startSlackHarness({ model: quietModel() });
    const body = fixture('java_sdk_sample_message_changed_event_all_fields.json');

    const response = await send(slack, { raw: body, contentType: 'application/json' });

    expect(response.status).toBe(200);
    await slack.waitForLog(
      (entry) => String(entry.msg).startsWith('ignoring a') || entry.result === 'ignored',
    );
    await expectNothingHappened(slack);
  },

  async 'java_sdk_sample_block_actions_all_fields.json'() {
    const slack = await startSlackHarness({ model: quietModel() });
    const payload = fixture('java_sdk_sample_block_actions_all_fields.json');

    const response = await send(slack, rawForm(new URLSearchParams({ payload }).toString()));

    expect(response.status).toBe(200);
    await slack.waitForLog((entry) => entry.msg === 'ignoring an unknown action');
    await expectNothingHappened(slack);
    expect(readRows(slack.databasePath, 'SELECT request_id FROM approvals')).toEqual([]);
  },

  async 'block_actions_approve_deny_buttons.form-urlencoded.txt'() {
    const slack = await startSlackHarness({ model: quietModel() });
    const body = fixture('block_actions_approve_deny_buttons.form-urlencoded.txt');

    // As recorded: another app's Approve button. Acknowledged, and nothing else.
    const asRecorded = await send(slack, rawForm(body));
    expect(asRecorded.status).toBe(200);
    await slack.waitForLog((entry) => entry.msg === 'ignoring an unknown action');
    await expectNothingHappened(slack);

    // The same click on holdfast's Allow button, for a request id holdfast never issued.
    const ours = await send(
      slack,
      editedForm(body, (fields) => {
        const payload = JSON.parse(fields.get('payload') ?? '{}') as {
          actions: Array<{ action_id: string }>;
          response_url: string;
        };
        payload.actions[0]!.action_id = 'holdfast.approval.allow';
        payload.response_url = slack.api.responseUrl('recorded-click');
        fields.set('payload', JSON.stringify(payload));
      }),
    );
    expect(ours.status).toBe(200);
    const told = await slack.api.waitFor('chat.postEphemeral');
    expect(told.params).toMatchObject({ channel: 'GV85DURL5', user: 'U045VRZFT' });
    expect(String(told.params.text)).toContain('not known to holdfast');
    await expectNothingHappened(slack);
  },

  async 'slash_command.form-urlencoded.txt'() {
    const slack = await startSlackHarness({ model: quietModel() });
    const body = fixture('slash_command.form-urlencoded.txt');

    // As recorded, `/test`: not holdfast's command, answered with a short explanation.
    const asRecorded = await send(slack, rawForm(body));
    expect(asRecorded.status).toBe(200);
    expect(JSON.parse(asRecorded.text)).toMatchObject({ response_type: 'ephemeral' });
    expect(JSON.parse(asRecorded.text).text).toContain('does not handle `/test`');

    // The same request as `/approvals`: the inbox goes back through the response_url.
    const asApprovals = await send(
      slack,
      editedForm(body, (fields) => {
        fields.set('command', '/approvals');
        fields.set('response_url', slack.api.responseUrl('recorded-command'));
      }),
    );
    expect(asApprovals.status).toBe(200);
    const inbox = await slack.api.waitForResponse((post) => post.name === 'recorded-command');
    expect(inbox.body).toMatchObject({
      response_type: 'ephemeral',
      text: 'Nothing is waiting for approval in this channel.',
    });
    await expectNothingHappened(slack);
  },

  async 'java_sdk_sample_chat.postEphemeral_response.json'() {
    // A response, not a request: the fake Web API must answer chat.postEphemeral in this shape.
    const sample = fixtureJson('java_sdk_sample_chat.postEphemeral_response.json');
    const api = await startFakeSlackApi();
    try {
      const client = new WebClient(api.botToken, { slackApiUrl: api.url, retryConfig: { retries: 0 } });
      await client.chat.postEphemeral({ channel: 'C0OPS', user: 'U0ALICE', text: 'only you' });
      const [call] = api.callsTo('chat.postEphemeral');
      for (const [key, value] of Object.entries(call?.response ?? {})) {
        expect(Object.keys(sample)).toContain(key);
        expect(typeof value).toBe(typeof sample[key]);
      }
      expect(call?.response.message_ts).toMatch(/^\d{10}\.\d{6}$/);
    } finally {
      await api.close();
    }
  },
};

describe('Slack fixtures', () => {
  it('finds the shared Slack fixtures beside the project', () => {
    expect(existsSync(fixturesDir), `missing ${path.relative(projectRoot, fixturesDir)}`).toBe(true);
    expect(fixtureFiles.length).toBeGreaterThan(0);
  });

  it('has a replay for every fixture file', () => {
    expect(fixtureFiles).toEqual(Object.keys(replays).sort());
  });

  for (const file of fixtureFiles) {
    const replay = replays[file];
    if (replay) it(`replays ${file}`, replay);
  }
});

describe('the fake Slack Web API against the OpenAPI spec', () => {
  it('finds the spec beside the project', () => {
    expect(specIsPresent()).toBe(true);
  });

  const checks = specIsPresent() ? loadSpecChecks() : undefined;

  it('answers each method holdfast calls with the fields the spec requires', async () => {
    const api = await startFakeSlackApi();
    try {
      api.setUser('U0ALICE', { name: 'alice' });
      api.setGroupMembers('S0ONCALL', ['U0CAROL']);
      api.setChannel('C0OPS', { name: 'ops' });
      const client = new WebClient(api.botToken, { slackApiUrl: api.url, retryConfig: { retries: 0 } });
      await client.auth.test();
      const posted = await client.chat.postMessage({ channel: 'C0OPS', text: 'hello' });
      await client.chat.update({ channel: 'C0OPS', ts: String(posted.ts), text: 'hello again' });
      await client.chat.postEphemeral({ channel: 'C0OPS', user: 'U0ALICE', text: 'only you' });
      await client.chat.getPermalink({ channel: 'C0OPS', message_ts: String(posted.ts) });
      await client.reactions.add({ channel: 'C0OPS', timestamp: String(posted.ts), name: 'eyes' });
      await client.reactions.remove({ channel: 'C0OPS', timestamp: String(posted.ts), name: 'eyes' });
      await client.users.info({ user: 'U0ALICE' });
      await client.usergroups.users.list({ usergroup: 'S0ONCALL' });
      await client.conversations.info({ channel: 'C0OPS' });
      await client.views.publish({ user_id: 'U0ALICE', view: { type: 'home', blocks: [] } });

      const methods = [...new Set(api.calls.map((call) => call.method))];
      expect(methods).toHaveLength(11);
      for (const call of api.calls) {
        expect(call.response.ok, call.method).toBe(true);
        checks?.expectConforms(call.method, call.response);
      }
    } finally {
      await api.close();
    }
  });

  it('reports scripted failures in the spec error shape', async () => {
    const api = await startFakeSlackApi();
    try {
      const client = new WebClient(api.botToken, { slackApiUrl: api.url, retryConfig: { retries: 0 } });
      api.failNext('chat.postMessage', { type: 'error', error: 'not_in_channel' });
      await expect(client.chat.postMessage({ channel: 'C0OPS', text: 'hello' })).rejects.toThrow(
        'not_in_channel',
      );
      const wrong = new WebClient('xoxb-not-the-token', {
        slackApiUrl: api.url,
        retryConfig: { retries: 0 },
      });
      await expect(wrong.auth.test()).rejects.toThrow('invalid_auth');

      const [postFailure, authFailure] = api.calls;
      checks?.expectConforms('chat.postMessage', postFailure!.response, 'default');
      checks?.expectConforms('auth.test', authFailure!.response, 'default');
    } finally {
      await api.close();
    }
  });
});
