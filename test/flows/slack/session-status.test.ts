import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import {
  channel,
  countingShellTool,
  readRows,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

// The thread's status while a turn runs: Slack's agent session (`agents.sessions.setStatus`) where the app
// has one, and the assistant status line (`assistant.threads.setStatus`) where it does not.

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

/**
 * A DM with alice whose turn runs a shell command, which asks, then answers "Answered.". The model's
 * first reply takes as long as `thinking` (a real model takes a second or two; this one none at all).
 */
async function commandNeedingApprovalInDirectMessages(
  options: Omit<Parameters<typeof startSlackHarness>[0], 'model' | 'tools'> = {},
  thinking: (api: Api) => Promise<unknown> = async () => {},
): Promise<SlackHarness> {
  const { tool } = countingShellTool();
  let slack: SlackHarness | undefined;
  const model = new ScriptedChatModel([
    async () => {
      await thinking((slack as SlackHarness).api);
      return reply.toolCalls(['ops_shell', { command: 'uptime' }, 'call_uptime']);
    },
    reply.text('Answered.'),
  ]);
  slack = await startSlackHarness({ ...options, model, tools: [tool] });
  slack.api.setChannel('D0ALICE', { name: 'alice', kind: 'im', members: [] });
  return slack;
}

const noAgentSessions = { slackApi: { agentSessions: false } } as const;

describe("the thread's agent session", () => {
  const sessionCalls = (slack: SlackHarness) =>
    slack.api.succeeded('agents.sessions.setStatus').map((call) => call.params.status);

  it('opens no session for a quick answer: the answer and one reaction are all it costs', async () => {
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text('Answered.')]) });

    const threadTs = await slack.mention('quick question');
    await answered(slack);
    await slack.api.waitFor('reactions.add');
    await slack.settle();

    // Besides the lookups a message needs (the requester's name, cached).
    const lookups = new Set(['auth.test', 'users.info']);
    expect(slack.api.calls.map((call) => call.method).filter((method) => !lookups.has(method))).toEqual([
      'chat.postMessage',
      'reactions.add',
    ]);
    expect(slack.api.reactions(channel, threadTs)).toEqual(['white_check_mark']);
    expect(slack.api.sessionStatus(channel, threadTs)).toBeUndefined();
  });

  it('is processing while a slow turn works, suspended while people are asked, and active once answered', async () => {
    const slack = await commandNeedingApprovalInDirectMessages({ workingAfterMs: 0 }, (api) =>
      api.waitFor('agents.sessions.setStatus', (call) => call.params.status === 'processing'),
    );

    const ts = await slack.direct('how long has the host been up?', { channel: 'D0ALICE' });
    const card = await waitForCard(slack.api, ts);
    await slack.api.waitFor('agents.sessions.setStatus', (call) => call.params.status === 'suspended');
    await slack.settle();
    expect(slack.api.sessionStatus('D0ALICE', ts)).toBe('suspended');

    await slack.click('allow', card);
    await answered(slack);
    await slack.api.waitFor('agents.sessions.setStatus', (call) => call.params.status === 'active');
    await slack.settle();

    // The resumed turn answers at once: its working status may be superseded before it goes out.
    const calls = sessionCalls(slack);
    expect(calls.slice(0, 2)).toEqual(['processing', 'suspended']);
    expect(calls.at(-1)).toBe('active');
    expect(calls.slice(2, -1).every((status) => status === 'processing')).toBe(true);
    expect(slack.api.sessionStatus('D0ALICE', ts)).toBe('active');
    expect(slack.api.callsTo('assistant.threads.setStatus')).toEqual([]);
  });

  it('does not stay processing while the card waits, even when the card is posted late', async () => {
    const slack = await commandNeedingApprovalInDirectMessages({ workingAfterMs: 0 });
    // The card waits out a rate limit: by the time it is posted, the turn has long settled.
    slack.api.failNext('chat.postMessage', { type: 'rate-limited', retryAfterSeconds: 1 });

    const ts = await slack.direct('how long has the host been up?', { channel: 'D0ALICE' });
    await waitForCard(slack.api, ts);
    await slack.api.waitFor('agents.sessions.setStatus', (call) => call.params.status === 'suspended');
    await slack.settle();

    expect(slack.api.sessionStatus('D0ALICE', ts)).toBe('suspended');
  });

  it("shows a resumed turn working only once the click's decision is on the file", async () => {
    const slack = await commandNeedingApprovalInDirectMessages({ workingAfterMs: 0 });
    const ts = await slack.direct('how long has the host been up?', { channel: 'D0ALICE' });
    const card = await waitForCard(slack.api, ts);
    await slack.api.waitFor('agents.sessions.setStatus', (call) => call.params.status === 'suspended');
    await slack.settle();
    const before = sessionCalls(slack).length;
    // What a process opened after a power cut at the moment Slack is told would find: each time the
    // thread is said to be working again, or its bell goes, the decision must already be there.
    const decisionsOnFile: unknown[] = [];
    const readDecision = () => {
      decisionsOnFile.push(readRows(slack.databasePath, 'SELECT decision FROM approvals'));
      return false;
    };
    const never = { type: 'error', error: 'not_scripted' } as const;
    slack.api.failMatching(
      'agents.sessions.setStatus',
      (params) => params.status === 'processing' && readDecision(),
      never,
    );
    slack.api.failMatching('reactions.remove', readDecision, never);

    await slack.click('allow', card);
    await answered(slack);
    await slack.api.waitFor('agents.sessions.setStatus', (call) => call.params.status === 'active');
    expect(decisionsOnFile.length).toBeGreaterThan(0);
    expect(new Set(decisionsOnFile.map((rows) => JSON.stringify(rows)))).toEqual(
      new Set([JSON.stringify([{ decision: 'allowed' }])]),
    );
    expect(sessionCalls(slack).length).toBeGreaterThan(before);
  });
});

describe('the assistant status line, where the app has no agent sessions', () => {
  const statusCalls = (slack: SlackHarness) =>
    slack.api.succeeded('assistant.threads.setStatus').map((call) => call.params.status);

  it('says it works, then that it waits for an approval, and is gone at the end', async () => {
    const slack = await commandNeedingApprovalInDirectMessages(
      { ...noAgentSessions, workingAfterMs: 0 },
      (api) =>
        api.waitFor('assistant.threads.setStatus', (call) => call.params.status === 'is working on it…'),
    );

    const ts = await slack.direct('how long has the host been up?', { channel: 'D0ALICE' });
    const card = await waitForCard(slack.api, ts);
    await slack.api.waitFor(
      'assistant.threads.setStatus',
      (call) => call.params.status !== 'is working on it…',
    );
    await slack.settle();
    expect(slack.api.assistantStatus('D0ALICE', ts)).toBe('is waiting for an approval…');
    // Told once that agent sessions are not available, and not asked again.
    expect(slack.api.callsTo('agents.sessions.setStatus')).toHaveLength(1);

    await slack.click('allow', card);
    await answered(slack);

    expect(statusCalls(slack)[0]).toBe('is working on it…');
    expect(slack.api.assistantStatus('D0ALICE', ts)).toBe('');
    expect(slack.api.callsTo('agents.sessions.setStatus')).toHaveLength(1);
  });

  it('shows in a channel thread, is sent again while a long tool runs, and is gone at the end', async () => {
    // Runs until the status line has been sent again, as Slack drops it after two quiet minutes.
    const slack = await turnWaitingFor(
      (api) =>
        api.waitFor(
          'assistant.threads.setStatus',
          () => api.succeeded('assistant.threads.setStatus').length >= 3,
        ),
      { ...noAgentSessions, statusRefreshMs: 20, workingAfterMs: 0 },
    );

    const threadTs = await slack.mention('run the long job');
    await answered(slack);

    const statuses = slack.api.succeeded('assistant.threads.setStatus').map((call) => call.params);
    expect(statuses[0]).toMatchObject({
      channel_id: channel,
      thread_ts: threadTs,
      status: 'is working on it…',
    });
    const lines = statuses.filter((status) => status.status !== '');
    expect(lines.every((status) => status.status === 'is working on it…')).toBe(true);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(slack.api.assistantStatus(channel, threadTs)).toBe('');
  });

  it('is not asked for again in a channel where Slack refused it, and still shows in a DM', async () => {
    let slack: SlackHarness | undefined;
    // The DM's answer waits until its status line showed, so nothing supersedes it before it goes out.
    const afterTheLine = async () => {
      await (slack as SlackHarness).api.waitFor(
        'assistant.threads.setStatus',
        (call) => call.params.channel_id === 'D0ALICE',
      );
      return reply.text('Answered.');
    };
    // The first answer, too, comes once the line was asked for (and refused), as a model takes a moment.
    const afterTheRefusal = async () => {
      await (slack as SlackHarness).api.waitFor('assistant.threads.setStatus');
      return reply.text('Answered.');
    };
    const model = new ScriptedChatModel([afterTheRefusal, reply.text('Answered.'), afterTheLine]);
    slack = await startSlackHarness({ ...noAgentSessions, model, workingAfterMs: 0 });
    slack.api.failNext('assistant.threads.setStatus', { type: 'error', error: 'channel_type_not_supported' });

    await slack.mention('first question');
    await answered(slack);
    await slack.mention('second question');
    await slack.api.waitFor(
      'chat.postMessage',
      (call) =>
        call.params.text === 'Answered.' &&
        (slack as SlackHarness).api.callsTo('chat.postMessage').length >= 2,
    );
    await slack.settle();
    expect(slack.api.callsTo('assistant.threads.setStatus').map((call) => call.params.channel_id)).toEqual([
      channel,
    ]);

    slack.api.setChannel('D0ALICE', { name: 'alice', kind: 'im', members: [] });
    await slack.direct('and a DM', { channel: 'D0ALICE' });
    await slack.api.waitFor('assistant.threads.setStatus', (call) => call.params.channel_id === 'D0ALICE');
  });

  it('is gone at the end even when the working line was still on its way as the model answered', async () => {
    let working: ReturnType<SlackHarness['api']['holdNext']> | undefined;
    // The model answers once the working line is on its way.
    const afterTheLineLeft = async () => {
      await working?.arrived;
      return reply.text('Answered.');
    };
    const slack = await startSlackHarness({
      ...noAgentSessions,
      workingAfterMs: 0,
      model: new ScriptedChatModel([afterTheLineLeft]),
    });
    working = slack.api.holdNext('assistant.threads.setStatus');

    const threadTs = await slack.mention('quick question');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Answered.');
    working.release();
    await slack.settle();

    expect(statusCalls(slack)).toEqual(['is working on it…', '']);
    expect(slack.api.assistantStatus(channel, threadTs)).toBe('');
  });

  it('clears it when the answer could not be posted', async () => {
    const slack = await turnWaitingFor((api) => api.waitFor('assistant.threads.setStatus'), {
      ...noAgentSessions,
      workingAfterMs: 0,
    });
    slack.api.failMatching('chat.postMessage', (params) => params.text === 'Answered.', {
      type: 'error',
      error: 'not_in_channel',
    });

    const threadTs = await slack.mention('quick question');
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'x');
    await slack.settle();

    expect(statusCalls(slack).at(-1)).toBe('');
    expect(slack.api.assistantStatus(channel, threadTs)).toBe('');
    expect(slack.api.reactions(channel, threadTs)).toEqual(['x']);
  });

  it('takes the tick off when the answer fails after the turn was already shown done', async () => {
    const slack = await startSlackHarness({
      ...noAgentSessions,
      model: new ScriptedChatModel([reply.text('Answered.')]),
      // The tick waits for the answer no longer than this (as when another process posts the answer).
      answerWaitMs: 0,
    });
    slack.api.failMatching('chat.postMessage', (params) => params.text === 'Answered.', {
      type: 'error',
      error: 'not_in_channel',
    });
    // Slack's refusal reaches holdfast only after the turn has settled and its tick is on the message.
    const answer = slack.api.holdNext('chat.postMessage', (call) => call.params.text === 'Answered.');

    const threadTs = await slack.mention('quick question');
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'white_check_mark');
    answer.release();
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'x');
    await slack.settle();

    expect(slack.api.reactions(channel, threadTs)).toEqual(['x']);
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
      {
        ...noAgentSessions,
        workingAfterMs: 0,
        statusRefreshMs: 20,
        live: { showAfterMs: 0, streamIntervalMs: 0, updateIntervalMs: 0 },
      },
    );

    const threadTs = await slack.mention('run the long job');
    await slack.api.waitFor('chat.update', (call) => JSON.stringify(call.params).includes('Answered.'));
    await slack.settle();

    expect(slack.api.callsTo('chat.postMessage')).toEqual([]);
    expect(statusCalls(slack).at(-1)).toBe('');
    expect(slack.api.assistantStatus(channel, threadTs)).toBe('');
  });
});
