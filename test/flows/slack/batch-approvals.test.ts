import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import {
  approvalActionBlocks,
  countingShellTool,
  people,
  readRows,
  type SlackHarness,
  startSlackHarness,
} from './slack-harness.js';
import { denyWithReason } from './slack-modals.js';

const commands = ['df -h', 'uptime', 'systemctl restart web'];

/** A plan's card: the message, each call's buttons (in order), and its "Allow all" button, if shown. */
function planCard(slack: SlackHarness, threadTs: string) {
  const posts = slack.api
    .succeeded('chat.postMessage')
    .filter(
      (call) => call.params.thread_ts === threadTs && String(call.params.text).startsWith('Approval needed'),
    );
  const post = posts[0];
  if (!post) throw new Error('no approval card in the thread');
  const ts = String(post.response.ts);
  const channel = String(post.params.channel);
  // What the card shows now: a rewrite replaces what was posted.
  const blocks = slack.api.message(channel, ts)?.blocks ?? [];
  const calls = approvalActionBlocks(blocks).map((block) => ({
    requestId: String(block.elements[0]?.value),
    blockId: block.block_id,
    channel,
    ts,
    threadTs,
  }));
  const allowAll = (blocks as Array<{ type: string; elements?: Array<Record<string, unknown>> }>)
    .flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []))
    .find((element) => element.action_id === 'holdfast.approval.allow_all');
  return { posts, ts, channel, blocks, calls, allowAll };
}

async function pendingPlan() {
  const { tool, runs } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(
      ...commands.map((command, i): [string, Record<string, unknown>, string] => [
        'ops_shell',
        { command },
        `call_${i + 1}`,
      ]),
    ),
    reply.text('All three done.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool] });
  const threadTs = await slack.mention('check the disk and uptime, then restart web');
  await slack.settle();
  return { slack, model, tool, runs, threadTs };
}

describe('calls that wait together, as one plan card', () => {
  it('posts a batch of three as one card: each call named, with its own buttons, and Allow all', async () => {
    const { slack, runs, threadTs } = await pendingPlan();

    const card = planCard(slack, threadTs);
    expect(card.posts).toHaveLength(1);
    expect(card.calls).toHaveLength(3);
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('Nothing runs until every call is decided.');
    for (const [i, command] of commands.entries())
      expect(text).toContain(`*${i + 1}.* \`ops_shell: ${command}\``);
    expect(card.allowAll?.text).toMatchObject({ text: 'Allow all 3' });
    // Every call of the plan is a request whose card is this message.
    const cards = readRows(slack.databasePath, 'SELECT channel, ts FROM approval_cards ORDER BY request_id');
    expect(cards).toEqual(Array.from({ length: 3 }, () => ({ channel: card.channel, ts: card.ts })));
    expect(runs).toEqual([]);
  });

  it('Allow all runs all three once and rewrites the card as decided', async () => {
    const { slack, runs, threadTs, model } = await pendingPlan();
    const card = planCard(slack, threadTs);

    await slack.click('allow_all', {
      requestId: String(card.allowAll?.value),
      blockId: `holdfast.plan:${card.calls[0]?.requestId}`,
      channel: card.channel,
      ts: card.ts,
      threadTs,
    });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'All three done.');
    await slack.settle();

    expect(runs).toEqual(commands);
    expect(model.calls).toHaveLength(2);
    expect(
      readRows(slack.databasePath, 'SELECT decision, decided_by FROM approvals ORDER BY created_at, rowid'),
    ).toEqual(Array.from({ length: 3 }, () => ({ decision: 'allowed', decided_by: people.bob })));
    const after = planCard(slack, threadTs);
    expect(after.calls).toEqual([]);
    expect(after.allowAll).toBeUndefined();
    expect(String(slack.api.message(card.channel, card.ts)?.text)).toMatch(/^Plan of 3 calls decided/);
  });

  it('a decision on one call rewrites the card: one decided, two still waiting with their buttons', async () => {
    const { slack, runs, threadTs, model } = await pendingPlan();
    const card = planCard(slack, threadTs);

    await denyWithReason(slack, card.calls[1] as NonNullable<(typeof card.calls)[1]>);
    await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    await slack.settle();

    const after = planCard(slack, threadTs);
    expect(after.calls.map((call) => call.requestId)).toEqual([
      card.calls[0]?.requestId,
      card.calls[2]?.requestId,
    ]);
    const text = JSON.stringify(after.blocks);
    expect(text).toContain('1 of 3 decided.');
    expect(text).toContain('Denied by <@U0BOB>');
    expect(after.allowAll?.text).toMatchObject({ text: 'Allow all 2' });
    expect(runs).toEqual([]);
    expect(model.calls).toHaveLength(1);
  });

  it('keeps the card clickable after a restart: the rest are decided from it and the turn resumes', async () => {
    const { slack, runs, threadTs, tool } = await pendingPlan();
    const card = planCard(slack, threadTs);
    await slack.click('allow', card.calls[0] as NonNullable<(typeof card.calls)[0]>);
    await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    await slack.settle();

    await slack.restart({
      model: new ScriptedChatModel([reply.text('Resumed after restart.')]),
      tools: [tool],
    });
    const rest = planCard(slack, threadTs);
    await slack.click('allow_all', {
      requestId: String(rest.allowAll?.value),
      blockId: `holdfast.plan:${card.calls[0]?.requestId}`,
      channel: card.channel,
      ts: card.ts,
      threadTs,
    });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Resumed after restart.');
    await slack.settle();

    expect(runs).toEqual(commands);
  });

  it('refuses Allow all from someone who may not decide every call, and decides none', async () => {
    const { slack, runs, threadTs } = await pendingPlan();
    const card = planCard(slack, threadTs);

    await slack.click(
      'allow_all',
      {
        requestId: String(card.allowAll?.value),
        blockId: `holdfast.plan:${card.calls[0]?.requestId}`,
        channel: card.channel,
        ts: card.ts,
        threadTs,
      },
      { user: people.mallory },
    );
    const told = await slack.api.waitFor('chat.postEphemeral', (call) => call.params.user === people.mallory);
    await slack.settle();

    expect(String(told.params.text)).toContain('You are not an approver');
    expect(readRows(slack.databasePath, 'SELECT decision FROM approvals')).toEqual(
      Array.from({ length: 3 }, () => ({ decision: null })),
    );
    expect(runs).toEqual([]);
  });
});
