import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import {
  approvalActionBlocks,
  countingShellTool,
  type PostedCard,
  readRows,
  type SlackHarness,
  startSlackHarness,
} from './slack-harness.js';

/** Every approval card posted in the thread, in order, read the way `waitForCard` reads one. */
function cardsIn(slack: SlackHarness, threadTs: string): PostedCard[] {
  return slack.api
    .succeeded('chat.postMessage')
    .filter(
      (call) => call.params.thread_ts === threadTs && String(call.params.text).startsWith('Approval needed'),
    )
    .map((call) => {
      const actions = approvalActionBlocks(call.params.blocks)[0];
      return {
        requestId: String(actions?.elements[0]?.value),
        blockId: String(actions?.block_id),
        channel: String(call.params.channel),
        ts: String(call.response.ts),
        threadTs,
        call,
      };
    });
}

describe('an assistant message with two calls that need approval, through Slack', () => {
  it('posts both requests before any click and runs neither until both are decided', async () => {
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(
        ['ops_shell', { command: 'systemctl restart web' }, 'call_web'],
        ['ops_shell', { command: 'systemctl restart db' }, 'call_db'],
      ),
      reply.text('Both restarted.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool] });

    const threadTs = await slack.mention('restart web and db');
    await slack.settle();

    const cards = cardsIn(slack, threadTs);
    expect(cards).toHaveLength(2);
    expect(
      readRows(slack.databasePath, 'SELECT tool_call_id, decision FROM approvals ORDER BY created_at, rowid'),
    ).toEqual([
      { tool_call_id: 'call_web', decision: null },
      { tool_call_id: 'call_db', decision: null },
    ]);
    const [web, db] = cards as [PostedCard, PostedCard];

    await slack.click('allow', web);
    await slack.api.waitFor('chat.update', (call) => call.params.ts === web.ts);
    await slack.settle();
    expect(runs).toEqual([]);
    expect(model.calls).toHaveLength(1);

    await slack.click('allow', db);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Both restarted.');
    await slack.settle();
    expect(runs).toEqual(['systemctl restart web', 'systemctl restart db']);
    expect(model.calls).toHaveLength(2);
  });
});
