import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import {
  channel,
  countingShellTool,
  eventually,
  people,
  readRows,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

/** Short, so a slow post spans many sweeps. */
const sweepIntervalMs = 50;
/**
 * How long Slack takes to answer a post here: a slow network, or a 429 waited out. Wall-clock on
 * purpose: the sweep runs on its own timer, and what is under test is that twenty of its runs, however
 * they interleave with the post, do not take the post in flight for one never made.
 */
const slowPostMs = 20 * sweepIntervalMs;

describe('the sweep, while a Slack post is slow', () => {
  it('posts one card and one answer however many sweeps run while each is in flight', async () => {
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([
        reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
        reply.text('web restarted.'),
      ]),
      tools: [tool],
      env: { HOLDFAST_SWEEP_INTERVAL: `${sweepIntervalMs}ms` },
    });
    const slowCard = slack.api.holdNext('chat.postMessage', (call) =>
      String(call.params.text).startsWith('Approval needed'),
    );

    const threadTs = await slack.mention('restart web please');
    await slowCard.arrived;
    await sleep(slowPostMs);
    slowCard.release();
    const card = await waitForCard(slack.api, threadTs);

    const slowAnswer = slack.api.holdNext(
      'chat.postMessage',
      (call) => call.params.text === 'web restarted.',
    );
    expect((await slack.click('allow', card)).status).toBe(200);
    await slowAnswer.arrived;
    await sleep(slowPostMs);
    slowAnswer.release();
    await slack.settle();

    const posts = slack.api
      .succeeded('chat.postMessage')
      .filter((call) => call.params.thread_ts === threadTs)
      .map((call) => String(call.params.text));
    expect(posts).toHaveLength(2);
    expect(posts[0]).toMatch(/^Approval needed/);
    expect(posts[1]).toBe('web restarted.');
    expect(slack.api.thread(channel, threadTs)).toHaveLength(2);
    expect(runs).toEqual(['systemctl restart web']);
    expect(readRows(slack.databasePath, 'SELECT status FROM turns')).toEqual([{ status: 'completed' }]);
  });
});

describe('a post whose answer is lost on the way back', () => {
  it('is looked for in the thread before it is posted again: one card, one answer', async () => {
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([
        reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
        reply.text('web restarted.'),
      ]),
      tools: [tool],
      delivery: { backoffMs: () => 10 },
    });
    // Slack posts each of them, then the connection drops before holdfast hears back.
    const lostCard = slack.api.holdNext('chat.postMessage', (call) =>
      String(call.params.text).startsWith('Approval needed'),
    );
    const lostAnswer = slack.api.holdNext(
      'chat.postMessage',
      (call) => call.params.text === 'web restarted.',
    );
    const outbox = () => readRows(slack.databasePath, 'SELECT key, status FROM outbox ORDER BY id');

    const threadTs = await slack.mention('restart web please');
    await lostCard.arrived;
    lostCard.drop();
    await eventually(() => outbox()[0]?.status === 'sent', 'the card to be on record');
    const card = await waitForCard(slack.api, threadTs);
    expect((await slack.click('allow', card)).status).toBe(200);
    await lostAnswer.arrived;
    lostAnswer.drop();
    await eventually(() => outbox().every((row) => row.status === 'sent'), 'the answer to be on record');
    await slack.settle();

    const posts = slack.api
      .succeeded('chat.postMessage')
      .filter((call) => call.params.thread_ts === threadTs)
      .map((call) => String(call.params.text));
    expect(posts).toHaveLength(2);
    expect(posts[0]).toMatch(/^Approval needed/);
    expect(posts[1]).toBe('web restarted.');
    expect(runs).toEqual(['systemctl restart web']);
    expect(outbox().map((row) => String(row.key).split(':')[0])).toEqual(['card', 'card-update', 'answer']);
    expect(readRows(slack.databasePath, 'SELECT ts FROM approval_cards')).toEqual([{ ts: card.ts }]);
  });

  it('finds a direct message the same way: the requester is told once', async () => {
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([reply.text('All quiet.')]),
      delivery: { backoffMs: () => 10 },
    });
    slack.api.failNext('chat.postMessage', { type: 'error', error: 'not_in_channel' });
    const lostNotice = slack.api.holdNext('chat.postMessage', (call) => call.params.channel === people.alice);

    await slack.mention('anything on fire?');
    await lostNotice.arrived;
    lostNotice.drop();
    await eventually(
      () =>
        readRows(slack.databasePath, "SELECT status FROM outbox WHERE key LIKE 'undeliverable:%'")[0]
          ?.status === 'sent',
      'the notice to be on record',
    );
    await slack.settle();

    const notices = slack.api
      .succeeded('chat.postMessage')
      .filter((call) => call.params.channel === people.alice);
    expect(notices).toHaveLength(1);
    expect(String(notices[0]?.params.text)).toContain('holdfast is not a member of that channel');
    expect(slack.api.succeeded('conversations.history')).not.toHaveLength(0);
  });
});
