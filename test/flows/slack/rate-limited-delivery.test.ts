import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatRequest } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel, type ScriptedStep } from '../../../src/llm/scripted-chat-model.js';
import { publishedLimits } from '../../../src/slack/rate-limits/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { deliveryKeyOf, type FakeSlackApi } from '../../support/fake-slack-api.js';
import { publishedRateLimits, type RateLimit } from '../../support/fake-slack-rate-limits.js';
import { createTestClock } from '../../support/test-clock.js';
import {
  channel,
  countingShellTool,
  eventually,
  readRows,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

// Delivery under Slack's rate limits: what must arrive is never given up while Slack only asks to wait,
// and nothing that waits holds back what should not wait behind it.

const answerRows = (slack: SlackHarness) =>
  readRows(slack.databasePath, "SELECT status, attempts FROM outbox WHERE key LIKE 'answer:%'");

const postsOf = (api: FakeSlackApi, text: string) =>
  api.callsTo('chat.postMessage').filter((call) => call.params.text === text);

describe('an answer Slack asks to wait', () => {
  it('arrives once when a two-minute pause ends, and the wait counts as no failed attempt', async () => {
    const clock = createTestClock(Date.now());
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([reply.text('All quiet.')]),
      now: clock.now,
      slackClock: clock.now,
    });
    slack.api.failMatching('chat.postMessage', (params) => params.text === 'All quiet.', {
      type: 'rate-limited',
      retryAfterSeconds: 120,
    });

    const threadTs = await slack.mention('anything on fire?');
    await slack.api.waitFor('chat.postMessage', (call) => call.status === 429);
    await slack.settle();
    await slack.holdfast.runtime.recover();
    // Within the pause nothing more is sent, and the row waits: not failed, no attempt spent.
    expect(postsOf(slack.api, 'All quiet.').map((call) => call.status)).toEqual([429]);
    expect(answerRows(slack)).toEqual([{ status: 'pending', attempts: 0 }]);

    clock.advance(121_000);
    await slack.holdfast.runtime.recover();
    await slack.api.waitFor('chat.postMessage', (call) => call.status === 200);
    await slack.settle();

    expect(postsOf(slack.api, 'All quiet.').map((call) => call.status)).toEqual([429, 200]);
    expect(slack.api.thread(channel, threadTs).map((message) => message.text)).toEqual(['All quiet.']);
    expect(answerRows(slack)).toEqual([{ status: 'sent', attempts: 1 }]);
  });

  it('loses nothing when the process restarts during the pause', async () => {
    const clock = createTestClock(Date.now());
    const model = () => new ScriptedChatModel([reply.text('All quiet.')]);
    const slack = await startSlackHarness({ model: model(), now: clock.now, slackClock: clock.now });
    slack.api.failMatching('chat.postMessage', (params) => params.text === 'All quiet.', {
      type: 'rate-limited',
      retryAfterSeconds: 120,
    });

    const threadTs = await slack.mention('anything on fire?');
    await slack.api.waitFor('chat.postMessage', (call) => call.status === 429);
    await slack.settle();

    // A new process on the same file: the row and when it may go again are on disk.
    await slack.restart({ model: new ScriptedChatModel([]) });
    await slack.settle();
    expect(postsOf(slack.api, 'All quiet.')).toHaveLength(1);
    expect(answerRows(slack)).toEqual([{ status: 'pending', attempts: 0 }]);

    clock.advance(121_000);
    await slack.holdfast.runtime.recover();
    await slack.api.waitFor('chat.postMessage', (call) => call.status === 200);
    await slack.settle();

    expect(slack.api.thread(channel, threadTs).map((message) => message.text)).toEqual(['All quiet.']);
    expect(answerRows(slack)).toEqual([{ status: 'sent', attempts: 1 }]);
  });
});

describe('what waits on Slack', () => {
  it('holds back no answer and no card behind a card rewrite Slack keeps refusing', async () => {
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_first']),
      reply.text('Restarted.'),
      reply.toolCalls(['ops_shell', { command: 'systemctl restart api' }, 'call_second']),
      reply.text('Restarted again.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool] });
    const threadTs = await slack.mention('please restart the web tier');
    const first = await waitForCard(slack.api, threadTs);
    // Rewriting the decided card is limited for two minutes.
    slack.api.failNext('chat.update', { type: 'rate-limited', retryAfterSeconds: 120 });

    await slack.click('allow', first);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Restarted.');
    await slack.mention('and the api tier', { threadTs });
    const second = await slack.api.waitFor(
      'chat.postMessage',
      (call) =>
        call.status === 200 &&
        String(call.params.text ?? '').startsWith('Approval needed') &&
        (call.response as { ts?: unknown }).ts !== first.ts,
    );
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
    expect(second.params.thread_ts).toBe(threadTs);
    expect(slack.api.callsTo('chat.update').map((call) => call.status)).toEqual([429]);
    expect(
      readRows(slack.databasePath, "SELECT status, attempts FROM outbox WHERE key LIKE 'card-update:%'"),
    ).toEqual([{ status: 'pending', attempts: 0 }]);
  });

  it('stops a stream Slack asked to wait before its answer replaces it, and posts nothing beside it', async () => {
    let slack: SlackHarness | undefined;
    const tool = defineTool({
      name: 'wait_for_stream',
      description: 'Returns once the answer is streaming.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'test' }),
      execute: async () => {
        await (slack as SlackHarness).api.waitFor('chat.startStream');
        return 'done';
      },
    });
    slack = await startSlackHarness({
      model: new ScriptedChatModel([reply.toolCalls(['wait_for_stream', {}]), reply.text('Answered.')]),
      tools: [tool as Tool],
      live: { showAfterMs: 0, streamIntervalMs: 0, updateIntervalMs: 0 },
    });
    slack.api.failNext('chat.stopStream', { type: 'rate-limited', retryAfterSeconds: 1 });

    await slack.mention('run the long job');
    const opened = await slack.api.waitFor('chat.startStream');
    const streamTs = String((opened.response as { ts?: unknown }).ts);
    await slack.api.waitFor(
      'chat.update',
      (call) => JSON.stringify(call.params).includes('Answered.'),
      10_000,
    );
    await slack.settle();

    expect(slack.api.callsTo('chat.stopStream').map((call) => call.status)).toEqual([429, 200]);
    const stream = slack.api.message(channel, streamTs);
    expect(stream?.streaming).toBe(false);
    expect(JSON.stringify(stream)).toContain('Answered.');
    expect(postsOf(slack.api, 'Answered.')).toEqual([]);
    expect(answerRows(slack)).toEqual([{ status: 'sent', attempts: 1 }]);
  });
});

/** Slack's published limits, six times as fast: a minute of Slack in ten seconds of test. */
const limitsSixTimesFaster: Record<string, RateLimit> = Object.fromEntries(
  Object.entries(publishedRateLimits).map(([method, limit]) => [
    method,
    { ...limit, perMinute: limit.perMinute * 6 },
  ]),
);

const appLimitsSixTimesFaster = Object.fromEntries(
  Object.entries(publishedLimits).map(([method, limit]) => [
    method,
    { ...limit, perMinute: limit.perMinute * 6 },
  ]),
);

/** Answers each question with its own tag, so every answer can be matched to its mention. */
const echoTag: ScriptedStep = (request: ChatRequest) => {
  const asked = [...request.messages].reverse().find((message) => message.role === 'user');
  const tag = /Q\d+-\d/.exec(String(asked?.content ?? ''))?.[0] ?? 'unknown';
  return reply.text(`Answer ${tag}.`);
};

describe('a burst in one workspace under Slack’s limits', () => {
  it('ends with every answer posted once, in order per thread, and every final reaction right', async () => {
    const channels = ['C0OPS', 'C0WEB', 'C0API', 'C0DB', 'C0NET', 'C0SRE'];
    const threads = 30;
    const slack = await startSlackHarness({
      model: new ScriptedChatModel(Array.from({ length: 2 * threads }, () => echoTag)),
      slackApi: { rateLimits: limitsSixTimesFaster },
      // The app plans by the same limits it meets.
      slackLimits: appLimitsSixTimesFaster,
      env: { HOLDFAST_MAX_TURNS_PER_USER: '100' },
    });
    for (const id of channels) slack.api.setChannel(id, { name: id.slice(2).toLowerCase() });

    // Sixty requests in about ten seconds of Slack's time: a first question in each of thirty threads,
    // then a follow-up in each.
    const roots: Array<{ channel: string; ts: string; replyTs?: string }> = [];
    for (let thread = 0; thread < threads; thread += 1) {
      const where = channels[thread % channels.length] as string;
      roots.push({ channel: where, ts: await slack.mention(`Q${thread}-1 disk?`, { channel: where }) });
    }
    for (const [thread, root] of roots.entries()) {
      root.replyTs = await slack.mention(`Q${thread}-2 and memory?`, {
        channel: root.channel,
        threadTs: root.ts,
      });
    }

    await eventually(
      () =>
        roots.every(
          (root) =>
            slack.api.reactions(root.channel, root.ts).includes('white_check_mark') &&
            slack.api.reactions(root.channel, root.replyTs as string).includes('white_check_mark'),
        ),
      'every request to show its final reaction',
      60_000,
    );
    await slack.settle();

    for (const [thread, root] of roots.entries()) {
      const answers = slack.api
        .thread(root.channel, root.ts)
        .filter((message) => message.text.startsWith('Answer'))
        .map((message) => message.text);
      expect(answers).toEqual([`Answer Q${thread}-1.`, `Answer Q${thread}-2.`]);
      // Final: the tick alone, nothing passing left behind.
      expect(slack.api.reactions(root.channel, root.ts)).toEqual(['white_check_mark']);
      expect(slack.api.reactions(root.channel, root.replyTs as string)).toEqual(['white_check_mark']);
    }
    const answerKeys = slack.api
      .callsTo('chat.postMessage')
      .filter((call) => call.status === 200)
      .map(deliveryKeyOf)
      .filter((key) => key?.startsWith('answer:'));
    expect(new Set(answerKeys).size).toBe(2 * threads);
    expect(answerKeys).toHaveLength(2 * threads);
    // Slack's Retry-After was respected every time it was given.
    expect([...slack.api.sentInsideRetryAfter.entries()]).toEqual([]);
    expect(readRows(slack.databasePath, "SELECT COUNT(*) AS n FROM outbox WHERE status != 'sent'")).toEqual([
      { n: 0 },
    ]);
  });
});
