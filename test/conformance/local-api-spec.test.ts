import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalWorkspace, startLocalWorkspace } from '../../src/local/start-local-workspace.js';
import { createTestLogger } from '../support/test-logger.js';
import { loadSpecChecks, type SpecChecks } from './slack-openapi.js';

/**
 * The local workspace stands in for Slack's Web API, so its answers are checked loosely against Slack's
 * own OpenAPI description, read in place beside the project: every field the success schema requires is
 * there with the declared type, and every error is one the spec lists for that method.
 */
const botToken = 'xoxb-local-conformance';
let checks: SpecChecks;
let workspace: LocalWorkspace;
let client: WebClient;
let dir: string;

beforeAll(async () => {
  checks = loadSpecChecks();
  // One workspace for the whole suite, so it keeps its own directory rather than a per-test one.
  dir = mkdtempSync(path.join(os.tmpdir(), 'holdfast-local-spec-'));
  workspace = await startLocalWorkspace({
    port: 0,
    databasePath: path.join(dir, 'local-workspace.db'),
    signingSecret: 'a'.repeat(32),
    botToken,
    // Nothing here is delivered: only the Web API side is exercised.
    deliverTo: 'http://127.0.0.1:9/slack/events',
    modelLabel: 'conformance',
    logger: createTestLogger().logger,
    now: () => 1_767_000_000_000,
  });
  client = new WebClient(botToken, { slackApiUrl: workspace.apiUrl, retryConfig: { retries: 0 } });
});

afterAll(async () => {
  await workspace?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const expectConforms = (method: string, response: object) => checks.expectConforms(method, response);
const expectListedError = (method: string, error: unknown) => checks.expectListedError(method, error);

async function callRaw(method: string, body: string, contentType: string, token = botToken) {
  const response = await fetch(`${workspace.apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
    body,
  });
  return (await response.json()) as Record<string, unknown>;
}

const callJson = (method: string, body: unknown, token?: string) =>
  callRaw(method, JSON.stringify(body), 'application/json; charset=utf-8', token);

describe('the local workspace Web API against the OpenAPI spec', () => {
  it('answers every method holdfast calls with the fields the spec requires', async () => {
    const auth = await client.auth.test();
    expectConforms('auth.test', auth);
    expect(auth.user_id).toBe(workspace.botUserId);

    const posted = await client.chat.postMessage({
      channel: 'C0OPS',
      text: 'card',
      blocks: [{ type: 'divider' }],
    });
    expectConforms('chat.postMessage', posted);
    const ts = posted.ts as string;

    const reply = await client.chat.postMessage({ channel: 'C0OPS', thread_ts: ts, text: 'in the thread' });
    expect(reply.message?.thread_ts).toBe(ts);

    const updated = await client.chat.update({ channel: 'C0OPS', ts, text: 'decided', blocks: [] });
    expectConforms('chat.update', updated);

    const ephemeral = await client.chat.postEphemeral({
      channel: 'C0OPS',
      user: 'U0CAROL',
      text: 'only you',
    });
    expectConforms('chat.postEphemeral', ephemeral);

    const permalink = await client.chat.getPermalink({ channel: 'C0OPS', message_ts: ts });
    expectConforms('chat.getPermalink', permalink);

    const added = await client.reactions.add({ channel: 'C0OPS', timestamp: ts, name: 'eyes' });
    expectConforms('reactions.add', added);
    const removed = await client.reactions.remove({ channel: 'C0OPS', timestamp: ts, name: 'eyes' });
    expectConforms('reactions.remove', removed);

    const user = await client.users.info({ user: 'U0BOB' });
    expectConforms('users.info', user);
    expect(user.user?.name).toBe('bob');

    const group = await client.usergroups.users.list({ usergroup: 'S0ONCALL' });
    expectConforms('usergroups.users.list', group);
    expect(group.users).toEqual(['U0BOB']);

    const channel = await client.conversations.info({ channel: 'C0OPS' });
    expectConforms('conversations.info', channel);

    const view = await client.views.publish({
      user_id: 'U0ALICE',
      view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'inbox' } }] },
    });
    expectConforms('views.publish', view);

    const open = await client.conversations.open({ users: 'U0ALICE' });
    expectConforms('conversations.open', open);
    expect(open.channel?.id).toBe('D0ALICE');

    const replies = await client.conversations.replies({ channel: 'C0OPS', ts });
    expectConforms('conversations.replies', replies);
    expect(replies.messages?.map((message) => message.ts)).toEqual([ts, reply.ts]);

    const history = await client.conversations.history({ channel: 'C0OPS' });
    expectConforms('conversations.history', history);
    expect(history.messages?.map((message) => message.ts)).toContain(ts);
    expect(history.messages?.map((message) => message.ts)).not.toContain(reply.ts);

    const status = await client.assistant.threads.setStatus({
      channel_id: 'D0ALICE',
      thread_ts: ts,
      status: 'is working…',
    });
    expect(status.ok).toBe(true);
  });

  it('refuses with errors the spec lists for each method', async () => {
    const refusals: Array<[string, Record<string, unknown>]> = [
      ['chat.postMessage', { channel: 'C0NOWHERE', text: 'x' }],
      ['chat.postMessage', { channel: 'C0OPS' }],
      ['chat.update', { channel: 'C0OPS', ts: '1.000000', text: 'x' }],
      ['chat.postEphemeral', { channel: 'C0NOWHERE', user: 'U0ALICE', text: 'x' }],
      ['users.info', { user: 'U0NOBODY' }],
      ['conversations.info', { channel: 'C0NOWHERE' }],
      ['conversations.replies', { channel: 'C0NOWHERE', ts: '1.000000' }],
      ['conversations.replies', { channel: 'C0OPS', ts: '1.000000' }],
      ['conversations.history', { channel: 'C0NOWHERE' }],
      ['conversations.history', { channel: 'C0OPS', oldest: 'yesterday' }],
      ['conversations.open', { users: 'U0NOBODY' }],
      ['conversations.open', {}],
    ];
    for (const [method, body] of refusals) {
      const answer = await callJson(method, body);
      expect(answer.ok, `${method} ${JSON.stringify(body)}`).toBe(false);
      expectListedError(method, answer.error);
    }
  });

  it('keeps the metadata a post carries and returns it to include_all_metadata, as Slack does', async () => {
    const metadata = { event_type: 'holdfast_delivery', event_payload: { key: 'answer:turn_1#0' } };
    const root = await client.chat.postMessage({ channel: 'C0GENERAL', text: 'root' });
    const posted = await client.chat.postMessage({
      channel: 'C0GENERAL',
      thread_ts: root.ts as string,
      text: 'with metadata',
      metadata,
    });
    const direct = await client.chat.postMessage({ channel: 'U0CAROL', text: 'direct', metadata });

    const thread = await client.conversations.replies({
      channel: 'C0GENERAL',
      ts: root.ts as string,
      include_all_metadata: true,
    });
    expect(thread.messages?.find((message) => message.ts === posted.ts)?.metadata).toEqual(metadata);
    const plain = await client.conversations.replies({ channel: 'C0GENERAL', ts: root.ts as string });
    expect(plain.messages?.find((message) => message.ts === posted.ts)?.metadata).toBeUndefined();

    const dm = await client.conversations.history({
      channel: direct.channel as string,
      oldest: String(Math.floor(Number(direct.ts) - 60)),
      include_all_metadata: true,
    });
    expect(direct.channel).toBe('D0CAROL');
    expect(dm.messages?.map((message) => [message.ts, message.metadata])).toEqual([[direct.ts, metadata]]);
  });

  it('accepts JSON bodies as well as form-encoded ones, as Slack does', async () => {
    const json = await callJson('chat.postMessage', {
      channel: 'C0GENERAL',
      text: 'from json',
      blocks: [{ type: 'divider' }],
    });
    expectConforms('chat.postMessage', json);
    expect((json.message as { blocks?: unknown[] }).blocks).toEqual([{ type: 'divider' }]);

    const form = await callRaw(
      'chat.postMessage',
      new URLSearchParams({
        channel: 'C0GENERAL',
        text: 'from a form',
        blocks: '[{"type":"divider"}]',
      }).toString(),
      'application/x-www-form-urlencoded',
    );
    expectConforms('chat.postMessage', form);
    expect((form.message as { blocks?: unknown[] }).blocks).toEqual([{ type: 'divider' }]);
  });

  it('refuses a wrong or missing bot token with Slack auth errors', async () => {
    const wrong = await callJson('auth.test', {}, 'xoxb-someone-else');
    expect(wrong).toEqual({ ok: false, error: 'invalid_auth' });
    expectListedError('auth.test', wrong.error);

    const response = await fetch(`${workspace.apiUrl}auth.test`, { method: 'POST' });
    const missing = (await response.json()) as Record<string, unknown>;
    expect(missing).toEqual({ ok: false, error: 'not_authed' });
    expectListedError('auth.test', missing.error);
  });
});
