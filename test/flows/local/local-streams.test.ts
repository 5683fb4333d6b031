import { WebClient } from '@slack/web-api';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startLocalWorkspace } from '../../../src/local/start-local-workspace.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestLogger } from '../../support/test-logger.js';
import { signIn } from './local-http.js';

const botToken = 'xoxb-local-streams-test';

async function startWorkspace() {
  const workspace = await startLocalWorkspace({
    port: 0,
    databasePath: tempDir('holdfast-local-streams-').file('local-workspace.db'),
    signingSecret: 's'.repeat(32),
    botToken,
    deliverTo: 'http://127.0.0.1:9/slack/events',
    modelLabel: 'test',
    logger: createTestLogger().logger,
    now: Date.now,
  });
  onTestFinished(() => workspace.close());
  const client = new WebClient(botToken, {
    slackApiUrl: workspace.apiUrl,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  return { workspace, client };
}

/** Slack's error code of a refused call (the WebClient throws it). */
async function refusal(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    return (error as { data?: { error?: string } }).data?.error;
  }
}

interface StreamedMessage {
  ts: string;
  text: string;
  edited: boolean;
  blocks: unknown[];
  stream?: {
    open: boolean;
    tasks: Array<{ id: string; title: string; status: string; details?: string }>;
    blocks: Array<{ type: string }>;
  };
}

describe("the local workspace's answer streaming", () => {
  it('grows a message by its chunks while open, keeps each task as last updated, and ends it on stop', async () => {
    const { workspace, client } = await startWorkspace();
    const root = await client.chat.postMessage({ channel: 'C0OPS', text: 'a question' });
    const threadTs = root.ts as string;
    const started = await client.chat.startStream({
      channel: 'C0OPS',
      thread_ts: threadTs,
      recipient_user_id: 'U0ALICE',
      recipient_team_id: 'T0LOCAL',
      chunks: [
        { type: 'markdown_text', text: 'Checking ' },
        { type: 'task_update', id: 'call_1', title: 'run_shell', status: 'pending' },
        {
          type: 'blocks',
          blocks: [
            {
              type: 'actions',
              elements: [{ type: 'button', action_id: 'stop', text: { type: 'plain_text', text: 'Stop' } }],
            },
          ],
        },
      ],
    });
    const ts = started.ts as string;
    await client.chat.appendStream({
      channel: 'C0OPS',
      ts,
      chunks: [
        { type: 'markdown_text', text: 'the disk.' },
        { type: 'task_update', id: 'call_1', title: 'run_shell', status: 'in_progress' },
        { type: 'task_update', id: 'call_2', title: 'read_file', status: 'error', details: 'took 3 s' },
      ],
    });
    const tab = await signIn(workspace.url);
    const streamed = (await tab.state('U0ALICE')).messages.find(
      (message) => message.ts === ts,
    ) as unknown as StreamedMessage;
    expect(streamed.text).toBe('Checking the disk.');
    expect(streamed.stream?.open).toBe(true);
    expect(streamed.stream?.tasks).toEqual([
      { id: 'call_1', title: 'run_shell', status: 'in_progress' },
      { id: 'call_2', title: 'read_file', status: 'error', details: 'took 3 s' },
    ]);
    expect(streamed.stream?.blocks.map((block) => block.type)).toEqual(['actions']);

    await client.chat.stopStream({ channel: 'C0OPS', ts, markdown_text: '\n\nStopped.' });
    const stopped = (await tab.state('U0ALICE')).messages.find(
      (message) => message.ts === ts,
    ) as unknown as StreamedMessage;
    expect(stopped.text).toBe('Checking the disk.\n\nStopped.');
    expect(stopped.stream?.open).toBe(false);
    expect(await refusal(client.chat.appendStream({ channel: 'C0OPS', ts, markdown_text: 'more' }))).toBe(
      'message_not_in_streaming_state',
    );

    // The delivered answer rewrites the stopped stream: an ordinary message from then on.
    await client.chat.update({ channel: 'C0OPS', ts, text: 'The disk is fine.' });
    const answered = (await tab.state('U0ALICE')).messages.find(
      (message) => message.ts === ts,
    ) as unknown as StreamedMessage;
    expect(answered).toMatchObject({ text: 'The disk is fine.', edited: true });
    expect(answered.stream).toBeUndefined();
  });

  it('checks the arguments as Slack does', async () => {
    const { client } = await startWorkspace();
    const root = await client.chat.postMessage({ channel: 'C0OPS', text: 'a question' });
    const threadTs = root.ts as string;
    // Outside a DM a stream goes to one person of one team, both named.
    expect(await refusal(client.chat.startStream({ channel: 'C0OPS', thread_ts: threadTs }))).toBe(
      'missing_recipient_user_id',
    );
    expect(
      await refusal(
        client.chat.startStream({ channel: 'C0OPS', thread_ts: threadTs, recipient_user_id: 'U0ALICE' }),
      ),
    ).toBe('missing_recipient_team_id');
    expect(
      await refusal(
        client.chat.startStream({
          channel: 'C0NOPE',
          thread_ts: threadTs,
          recipient_user_id: 'U0ALICE',
          recipient_team_id: 'T0LOCAL',
        }),
      ),
    ).toBe('channel_not_found');
    expect(
      await refusal(
        client.apiCall('chat.startStream', {
          channel: 'C0OPS',
          thread_ts: threadTs,
          recipient_user_id: 'U0ALICE',
          recipient_team_id: 'T0LOCAL',
          chunks: [{ type: 'task_update', id: 'call_1', title: 'x', status: 'sleeping' }],
        }),
      ),
    ).toBe('invalid_chunks');
    expect(
      await refusal(client.chat.appendStream({ channel: 'C0OPS', ts: '1.000001', markdown_text: 'x' })),
    ).toBe('message_not_found');
    // A DM needs no recipient: it has one person.
    const dm = await client.chat.postMessage({ channel: 'D0ALICE', text: 'hi' });
    const inDm = await client.chat.startStream({ channel: 'D0ALICE', thread_ts: dm.ts as string });
    expect(inDm.ok).toBe(true);
  });
});
