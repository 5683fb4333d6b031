import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { holdWalSyncs } from '../../support/hold-wal-syncs.js';
import {
  channel,
  countingShellTool,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

// `assistant.threads.setStatus`: "is working on it…" while a turn runs, in DMs and channel threads.
// Slack clears the line when the app replies in the thread, and so does the fake workspace.

async function answered(slack: SlackHarness): Promise<void> {
  await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Answered.');
  await slack.settle();
}

type Api = SlackHarness['api'];

/**
 * A turn that calls one allowed tool, which returns once `until` resolves against the workspace, then
 * answers "Answered.": the test decides, from what Slack has seen, when the model answers.
 */
async function turnWaitingFor(
  until: (api: Api) => Promise<unknown>,
  options: Omit<Parameters<typeof startSlackHarness>[0], 'model' | 'tools'> = {},
): Promise<SlackHarness> {
  let slack: SlackHarness | undefined;
  const tool = defineTool({
    name: 'wait_for_slack',
    description: 'Returns once the thread shows what the test waits for.',
    parameters: z.object({}),
    permission: () => ({ type: 'allow', reason: 'test' }),
    execute: async () => {
      await until((slack as SlackHarness).api);
      return 'done';
    },
  });
  const model = new ScriptedChatModel([reply.toolCalls(['wait_for_slack', {}]), reply.text('Answered.')]);
  slack = await startSlackHarness({ ...options, model, tools: [tool as Tool] });
  return slack;
}

/** A DM with alice whose turn runs a shell command, which asks, then answers "Answered.". */
async function commandNeedingApprovalInDirectMessages(): Promise<SlackHarness> {
  const { tool } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'uptime' }, 'call_uptime']),
    reply.text('Answered.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool] });
  slack.api.setChannel('D0ALICE', { name: 'alice', kind: 'im', members: [] });
  return slack;
}

describe('the assistant status line', () => {
  it('sets the assistant status line while waiting in a direct message, and it is gone at the end', async () => {
    const slack = await commandNeedingApprovalInDirectMessages();

    const ts = await slack.direct('how long has the host been up?', { channel: 'D0ALICE' });
    const card = await waitForCard(slack.api, ts);
    await slack.settle();
    const statuses = () =>
      slack.api.succeeded('assistant.threads.setStatus').map((call) => call.params.status);
    expect(statuses().at(-1)).toBe('is waiting for an approval…');
    expect(slack.api.assistantStatus('D0ALICE', ts)).toBe('is waiting for an approval…');

    await slack.click('allow', card);
    await answered(slack);

    // The answer is a reply in the thread, which clears the line on Slack's side: no call is spent on it.
    expect(slack.api.assistantStatus('D0ALICE', ts)).toBe('');
  });

  it("shows a resumed turn working only once the click's decision is on disk", async () => {
    const slack = await commandNeedingApprovalInDirectMessages();
    const ts = await slack.direct('how long has the host been up?', { channel: 'D0ALICE' });
    const card = await waitForCard(slack.api, ts);
    await slack.settle();
    const working = () =>
      slack.api
        .succeeded('assistant.threads.setStatus')
        .filter((call) => call.params.status === 'is working on it…').length;
    const before = working();
    const syncs = holdWalSyncs();

    const clicked = slack.click('allow', card);
    // The resumed turn reads and plans while the decision's commit is synced...
    await slack.waitForLog((entry) => entry.msg === 'turn claimed' && entry.mode === 'resume');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // ...but a crash now would lose the decision: the thread must not say the work goes on.
    expect(syncs.held.length).toBeGreaterThan(0);
    expect(working()).toBe(before);

    syncs.spy.mockRestore();
    syncs.release();
    await clicked;
    await answered(slack);
    expect(working()).toBeGreaterThan(before);
  });

  it('says it waits for an approval once the card shows, even when the card is posted late', async () => {
    const slack = await commandNeedingApprovalInDirectMessages();
    // The card waits out a rate limit: by the time it is posted, the turn has long settled.
    slack.api.failNext('chat.postMessage', { type: 'rate-limited', retryAfterSeconds: 1 });

    const ts = await slack.direct('how long has the host been up?', { channel: 'D0ALICE' });
    await waitForCard(slack.api, ts);
    await slack.settle();

    // Posting the card cleared whatever line was up, as any reply of the app does; the line comes after.
    expect(slack.api.assistantStatus('D0ALICE', ts)).toBe('is waiting for an approval…');
  });

  it('shows in a channel thread, is sent again while a long tool runs, and is gone at the end', async () => {
    // Runs until the status line has been sent again, as Slack drops it after two quiet minutes.
    const slack = await turnWaitingFor(
      (api) =>
        api.waitFor(
          'assistant.threads.setStatus',
          () => api.succeeded('assistant.threads.setStatus').length >= 3,
        ),
      { statusRefreshMs: 20 },
    );

    const threadTs = await slack.mention('run the long job');
    await answered(slack);

    const statuses = slack.api.succeeded('assistant.threads.setStatus').map((call) => call.params);
    expect(statuses[0]).toMatchObject({
      channel_id: channel,
      thread_ts: threadTs,
      status: 'is working on it…',
    });
    // A clear is sent only when a line may land after the answer (see the tests below).
    const lines = statuses.filter((status) => status.status !== '');
    expect(lines.every((status) => status.status === 'is working on it…')).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(slack.api.assistantStatus(channel, threadTs)).toBe('');
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

describe('clearing the assistant status line', () => {
  const statusCalls = (slack: SlackHarness) =>
    slack.api.succeeded('assistant.threads.setStatus').map((call) => call.params.status);

  /**
   * A turn whose model answers once the working line has landed: the hourglass goes out in the thread's
   * status lane after the line has been answered, so once Slack has it, so has the line.
   */
  const answersAfterTheLine = () =>
    turnWaitingFor((api) => api.waitFor('reactions.add'), { workingAfterMs: 0 });

  it('leaves it to the answer, whose reply clears it, when the working line landed first', async () => {
    const slack = await answersAfterTheLine();

    const threadTs = await slack.mention('quick question');
    await answered(slack);

    expect(statusCalls(slack)).toEqual(['is working on it…']);
    expect(slack.api.assistantStatus(channel, threadTs)).toBe('');
  });

  it('clears it itself when the answer could not be posted', async () => {
    const slack = await answersAfterTheLine();
    slack.api.failMatching('chat.postMessage', (params) => params.text === 'Answered.', {
      type: 'error',
      error: 'not_in_channel',
    });

    const threadTs = await slack.mention('quick question');
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'x');
    await slack.settle();

    expect(statusCalls(slack)).toEqual(['is working on it…', '']);
    expect(slack.api.assistantStatus(channel, threadTs)).toBe('');
  });

  it('clears it itself when the working line was still on its way as the model answered', async () => {
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text('Answered.')]) });
    const working = slack.api.holdNext('assistant.threads.setStatus');

    await slack.mention('quick question');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Answered.');
    working.release();
    await slack.settle();

    expect(statusCalls(slack)).toEqual(['is working on it…', '']);
  });

  it('clears it when the answer rewrites a live message, which is no reply', async () => {
    // Runs until the line has been sent again after the live message opened (which cleared it).
    const slack = await turnWaitingFor(
      (api) =>
        api.waitFor('assistant.threads.setStatus', () => {
          const opened = api.calls.findIndex((call) => call.method === 'chat.startStream');
          return api.calls.some(
            (call, index) => index > opened && call.method === 'assistant.threads.setStatus',
          );
        }),
      { statusRefreshMs: 20, live: { showAfterMs: 0, streamIntervalMs: 0, updateIntervalMs: 0 } },
    );

    const threadTs = await slack.mention('run the long job');
    await slack.api.waitFor('chat.update', (call) => JSON.stringify(call.params).includes('Answered.'));
    await slack.settle();

    expect(slack.api.callsTo('chat.postMessage')).toEqual([]);
    expect(statusCalls(slack).at(-1)).toBe('');
    expect(slack.api.assistantStatus(channel, threadTs)).toBe('');
  });
});
