import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestClock } from '../../support/test-clock.js';
import {
  channel,
  countingShellTool,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { denyWithReason } from './slack-modals.js';

async function restartRequest(options: { env?: Record<string, string>; now?: () => number } = {}) {
  const { tool, runs } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
    reply.text('Answered.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool], ...options });
  const threadTs = await slack.mention('please restart the web tier');
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  return { slack, runs, threadTs, card };
}

/** The reactions on the request message, in the order they were added and removed. */
function reactionsOn(slack: SlackHarness, ts: string) {
  const on = (method: string) =>
    slack.api
      .succeeded(method)
      .filter((call) => call.params.channel === channel && call.params.timestamp === ts)
      .map((call) => String(call.params.name));
  return { added: on('reactions.add'), removed: on('reactions.remove') };
}

async function answered(slack: SlackHarness): Promise<void> {
  await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Answered.');
  await slack.settle();
}

describe('the status on the message that asked', () => {
  it('waits with a bell, and shows a tick once the allowed call ran', async () => {
    const { slack, threadTs, card } = await restartRequest();
    expect(reactionsOn(slack, threadTs).added).toEqual(['bell']);

    await slack.click('allow', card);
    await answered(slack);

    expect(reactionsOn(slack, threadTs)).toEqual({ added: ['bell', 'white_check_mark'], removed: ['bell'] });
  });

  it('shows a denial as denied, never as done', async () => {
    const { slack, threadTs, card, runs } = await restartRequest();

    await denyWithReason(slack, card);
    await answered(slack);

    expect(runs).toEqual([]);
    expect(reactionsOn(slack, threadTs)).toEqual({ added: ['bell', 'no_entry'], removed: ['bell'] });
  });

  it('shows a call a deny rule refused as denied, never as done', async () => {
    const policyPath = tempDir('holdfast-policy-').file('policy.yml');
    writeFileSync(
      policyPath,
      'rules:\n  - tool: ops_shell\n    action: deny\n    reason: no shell from chat\n',
    );
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'uptime' }, 'call_uptime']),
      reply.text('Answered.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool], env: { HOLDFAST_POLICY: policyPath } });

    const threadTs = await slack.mention('how long has the host been up?');
    await answered(slack);

    expect(runs).toEqual([]);
    expect(reactionsOn(slack, threadTs).added).toEqual(['no_entry']);
  });

  it('shows a request nobody decided as expired, and its card says nobody decided', async () => {
    const clock = createTestClock(Date.now());
    const { slack, threadTs, card, runs } = await restartRequest({
      env: { HOLDFAST_APPROVAL_TTL: '1h' },
      now: clock.now,
    });

    clock.advance(2 * 60 * 60_000);
    await slack.holdfast.runtime.recover();
    await answered(slack);

    expect(runs).toEqual([]);
    expect(reactionsOn(slack, threadTs)).toEqual({ added: ['bell', 'hourglass'], removed: ['bell'] });
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(String(update.params.text)).toContain('nobody decided');
    expect(JSON.stringify(update.params.blocks)).not.toMatch(/denied/i);
  });

  it('shows a turn that failed as failed, never as done', async () => {
    const model = new ScriptedChatModel([new Error('the model is down')]);
    const slack = await startSlackHarness({ model });

    const threadTs = await slack.mention('how full is the disk?');
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'x');
    await slack.settle();

    expect(reactionsOn(slack, threadTs).added).toEqual(['x']);
  });

  it('sets the assistant status line while waiting in a direct message, and clears it at the end', async () => {
    const { tool } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'uptime' }, 'call_uptime']),
      reply.text('Answered.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool] });
    slack.api.setChannel('D0ALICE', { name: 'alice', kind: 'im', members: [] });

    const ts = await slack.direct('how long has the host been up?', { channel: 'D0ALICE' });
    const card = await waitForCard(slack.api, ts);
    await slack.settle();
    const statuses = () =>
      slack.api.succeeded('assistant.threads.setStatus').map((call) => call.params.status);
    expect(statuses().at(-1)).toBe('is waiting for an approval…');

    await slack.click('allow', card);
    await answered(slack);

    expect(statuses().at(-1)).toBe('');
  });
});

describe('the assistant status line in channels', () => {
  it('shows in a channel thread, is sent again while a long tool runs, and is cleared at the end', async () => {
    let slackApi: SlackHarness['api'] | undefined;
    const longJob = defineTool({
      name: 'long_job',
      description: 'Runs for a while.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'test' }),
      // Runs until the status line has been sent again, as Slack drops it after two quiet minutes.
      execute: async () => {
        const api = slackApi as SlackHarness['api'];
        await api.waitFor(
          'assistant.threads.setStatus',
          () => api.succeeded('assistant.threads.setStatus').length >= 3,
        );
        return 'done';
      },
    });
    const model = new ScriptedChatModel([reply.toolCalls(['long_job', {}]), reply.text('Answered.')]);
    const slack = await startSlackHarness({ model, tools: [longJob as Tool], statusRefreshMs: 20 });
    slackApi = slack.api;

    const threadTs = await slack.mention('run the long job');
    await answered(slack);

    const statuses = slack.api.succeeded('assistant.threads.setStatus').map((call) => call.params);
    expect(statuses[0]).toMatchObject({
      channel_id: channel,
      thread_ts: threadTs,
      status: 'is working on it…',
    });
    expect(statuses.slice(0, -1).every((status) => status.status === 'is working on it…')).toBe(true);
    expect(statuses.length).toBeGreaterThanOrEqual(3);
    expect(statuses.at(-1)).toMatchObject({ channel_id: channel, status: '' });
  });

  it('is not asked for again in a channel where Slack refused it, and still shows in a DM', async () => {
    const model = new ScriptedChatModel([
      reply.text('Answered.'),
      reply.text('Answered.'),
      reply.text('Answered.'),
    ]);
    const slack = await startSlackHarness({ model });
    slack.api.failNext('assistant.threads.setStatus', { type: 'error', error: 'channel_type_not_supported' });

    await slack.mention('first question');
    await answered(slack);
    await slack.mention('second question');
    await slack.api.waitFor(
      'chat.postMessage',
      (call) => call.params.text === 'Answered.' && slack.api.callsTo('chat.postMessage').length >= 2,
    );
    await slack.settle();
    expect(slack.api.callsTo('assistant.threads.setStatus').map((call) => call.params.channel_id)).toEqual([
      channel,
    ]);

    slack.api.setChannel('D0ALICE', { name: 'alice', kind: 'im', members: [] });
    await slack.direct('and a DM', { channel: 'D0ALICE' });
    await slack.api.waitFor('assistant.threads.setStatus', (call) => call.params.channel_id === 'D0ALICE');
  });
});
