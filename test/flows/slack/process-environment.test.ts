import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startFakeOpenAIEndpoint } from '../../support/fake-openai-endpoint.js';
import { startFakeSlackApi } from '../../support/fake-slack-api.js';
import { postSignedToSlackApp } from '../../support/sign-slack-request.js';
import { tempDir } from '../../support/temp-dir.js';
import { freePort, projectRoot } from '../local/holdfast-process.js';
import { approvalActionBlocks } from './slack-cards.js';
import { approvalButtons, eventually, readRows } from './slack-harness.js';

const alice = 'U0ALICE';
const bob = 'U0BOB';
const channel = 'C0OPS';

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
});

describe('holdfast as a process, asked to print its own environment', () => {
  it('keeps every configured secret out of the stored result, the model, the thread and the log', async () => {
    const dir = tempDir('holdfast-environ-');
    const secrets = {
      SLACK_BOT_TOKEN: `xoxb-${'4'.repeat(12)}-${'7'.repeat(13)}-${randomBytes(12).toString('hex')}`,
      SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
      OPENAI_API_KEY: `sk-proj-${randomBytes(24).toString('base64url')}`,
      DATABASE_PASSWORD: randomBytes(12).toString('hex'),
    };
    // The signing secret comes from a file, as a deployment that keeps it out of the environment would.
    writeFileSync(dir.file('signing-secret'), `${secrets.SLACK_SIGNING_SECRET}\n`);
    const api = await startFakeSlackApi({ botToken: secrets.SLACK_BOT_TOKEN });
    onTestFinished(() => api.close());
    const model = await startFakeOpenAIEndpoint({
      replies: [
        {
          content: null,
          tool_calls: [
            {
              id: 'call_env',
              type: 'function',
              function: {
                name: 'run_shell',
                arguments: JSON.stringify({
                  command: 'cat /proc/$PPID/environ; echo; cat ../signing-secret',
                }),
              },
            },
          ],
        },
        { content: 'Here is what I found.' },
      ],
    });
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: projectRoot,
      env: {
        PATH: '/usr/bin:/bin',
        HOME: dir.path,
        PORT: String(port),
        SLACK_BOT_TOKEN: secrets.SLACK_BOT_TOKEN,
        SLACK_SIGNING_SECRET_FILE: dir.file('signing-secret'),
        SLACK_API_URL: api.url,
        OPENAI_API_KEY: secrets.OPENAI_API_KEY,
        OPENAI_BASE_URL: model.url,
        // Not holdfast's own, but a deployment's environment holds such things, and a tool can print it.
        DATABASE_URL: `postgres://app:${secrets.DATABASE_PASSWORD}@db.internal/app`,
        HOLDFAST_DB: dir.file('holdfast.db'),
        HOLDFAST_WORKDIR: dir.file('work'),
        HOLDFAST_APPROVERS: bob,
        HOLDFAST_SWEEP_INTERVAL: '1h',
        HOLDFAST_LOG_LEVEL: 'debug',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    await eventually(() => /holdfast is running/.test(output), `holdfast to start:\n${output}`, 30_000);

    const events = `http://127.0.0.1:${port}/slack/events`;
    const signed = (body: Parameters<typeof postSignedToSlackApp>[2]) =>
      postSignedToSlackApp(events, secrets.SLACK_SIGNING_SECRET, body);
    const threadTs = '1767220000.000100';
    await signed({
      json: {
        type: 'event_callback',
        team_id: api.identity.teamId,
        api_app_id: 'A0HOLDFAST',
        event_id: 'Ev0ENVIRON',
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: 'app_mention',
          user: alice,
          text: `<@${api.identity.botUserId}> print your environment`,
          ts: threadTs,
          event_ts: threadTs,
          channel,
        },
      },
    });
    const card = await api.waitFor(
      'chat.postMessage',
      (call) => String(call.params.text).startsWith('Approval needed'),
      30_000,
    );
    const requestId = approvalButtons(card.params.blocks).find(
      (button) => button.action_id === 'holdfast.approval.allow',
    )?.value;
    await signed({
      payload: {
        type: 'block_actions',
        team: { id: api.identity.teamId, domain: 'holdfast-test' },
        user: { id: bob, username: 'bob', name: 'bob', team_id: api.identity.teamId },
        api_app_id: 'A0HOLDFAST',
        token: 'legacy-verification-token',
        trigger_id: `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
        response_url: api.responseUrl('click'),
        container: { type: 'message', message_ts: card.response.ts, channel_id: channel },
        channel: { id: channel, name: 'ops' },
        message: {
          type: 'message',
          text: card.params.text,
          ts: card.response.ts,
          blocks: card.params.blocks,
        },
        actions: [
          {
            action_id: 'holdfast.approval.allow',
            // The card's own block id: it carries the fingerprint of the arguments the card showed.
            block_id: approvalActionBlocks(card.params.blocks)[0]?.block_id,
            value: requestId,
            type: 'button',
            action_ts: `${Math.floor(Date.now() / 1000)}.000200`,
          },
        ],
      },
    });
    await api.waitFor('chat.postMessage', (call) => call.params.text === 'Here is what I found.', 30_000);

    const stored = readRows(dir.file('holdfast.db'), "SELECT content FROM messages WHERE role = 'tool'");
    const toolResult = String(stored[0]?.content);
    // The command really did print holdfast's environment, with every secret in it redacted.
    expect(toolResult).toContain(`SLACK_API_URL=${api.url}`);
    expect(toolResult).toContain('SLACK_BOT_TOKEN=[redacted slack bot token]');
    expect(toolResult).toContain('OPENAI_API_KEY=[redacted openai key]');
    expect(toolResult).toContain('postgres://app:[redacted DATABASE_URL password]@db.internal/app');
    // A *_FILE variable keeps the secret out of the environment entirely: only the path is there, and
    // the file's content, printed on purpose, is redacted like any other configured secret.
    expect(toolResult).toContain(`SLACK_SIGNING_SECRET_FILE=${dir.file('signing-secret')}`);
    expect(toolResult).not.toContain('SLACK_SIGNING_SECRET=');
    expect(toolResult).toMatch(/\n\[redacted slack signing secret\]\n/);

    const sentToModel = JSON.stringify(model.requests[1]);
    // What was shown to people; the bot token itself rightly goes to Slack as the credential of each call.
    const shown = api.calls.map(({ params: { token: _credential, ...params } }) => params);
    const posted = JSON.stringify([shown, api.responses]);
    for (const value of Object.values(secrets)) {
      expect(toolResult).not.toContain(value);
      expect(sentToModel).not.toContain(value);
      expect(posted).not.toContain(value);
      expect(output).not.toContain(value);
    }
    expect(sentToModel).toContain('[redacted slack signing secret]');
  }, 60_000);
});
