import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import {
  approvalButtons,
  channel,
  countingShellTool,
  oncallGroup,
  people,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

describe('an approval over Slack', () => {
  it('posts the card, survives a restart of the whole app, and resumes from the click', async () => {
    const { tool, runs } = countingShellTool();
    const firstModel = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
    ]);
    const slack = await startSlackHarness({ model: firstModel, tools: [tool] });

    const threadTs = await slack.mention('please restart the web tier');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    // The card: what will run, exactly, who asked, who may decide, and the three buttons.
    const blocks = card.call.params.blocks as Array<Record<string, unknown>>;
    expect(blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Approval needed' } });
    const sectionTexts = blocks
      .filter((block) => block.type === 'section')
      .map((block) => (block.text as { text: string }).text);
    expect(sectionTexts).toContain('*Arguments*\n```\n{\n  "command": "systemctl restart web"\n}\n```');
    const buttons = approvalButtons(blocks);
    expect(buttons.map((button) => button.action_id)).toEqual([
      'holdfast.approval.allow',
      'holdfast.approval.deny',
      'holdfast.approval.edit',
      'holdfast.approval.always',
    ]);
    const [allow, deny, edit, always] = buttons;
    expect(allow).toMatchObject({ style: 'primary', value: card.requestId });
    expect(allow?.confirm).toBeDefined();
    expect(deny).toMatchObject({ style: 'danger', value: card.requestId });
    expect(edit).toMatchObject({ value: card.requestId });
    expect(edit?.confirm).toBeUndefined();
    expect(always).toMatchObject({ value: card.requestId });
    expect(card.requestId).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    const fallback = String(card.call.params.text);
    expect(fallback).toMatch(/^Approval needed: ops_shell `systemctl restart web` requested by <@U0ALICE>/);
    expect(fallback).toContain(`<@${people.bob}>`);
    expect(fallback).toContain(`<!subteam^${oncallGroup}>`);
    expect(card.channel).toBe(channel);
    expect(runs).toEqual([]);

    const firstStore = slack.holdfast.runtime.store;
    expect((await firstStore.approvals.get(card.requestId))?.cards).toEqual([
      { channel: card.channel, ts: card.ts },
    ]);

    // A new process on the same database file: nothing of the first app survives but the file.
    const secondModel = new ScriptedChatModel([reply.text('Restarted the web tier.')]);
    await slack.restart({ model: secondModel, tools: [tool] });
    expect(slack.holdfast.runtime.store).not.toBe(firstStore);

    const clicked = await slack.click('allow', card);
    expect(clicked.status).toBe(200);

    const answer = await slack.api.waitFor(
      'chat.postMessage',
      (call) => call.params.thread_ts === threadTs && call.params.text === 'Restarted the web tier.',
    );
    await slack.settle();
    expect(answer.response.ok).toBe(true);

    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(update.params.channel).toBe(channel);
    expect(String(update.params.text)).toContain(`Allowed by <@${people.bob}>`);
    expect(approvalButtons(update.params.blocks)).toEqual([]);
    expect(slack.api.message(channel, card.ts)?.updates).toBe(1);

    // The tool ran once, the first model was never asked again, the second saw the tool result.
    expect(runs).toEqual(['systemctl restart web']);
    expect(firstModel.calls).toHaveLength(1);
    expect(secondModel.calls).toHaveLength(1);
    expect(secondModel.calls[0]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_restart',
      content: 'ran: systemctl restart web',
      outcome: { type: 'succeeded' },
    });

    const approval = await slack.holdfast.runtime.store.approvals.get(card.requestId);
    expect(approval).toMatchObject({ decision: 'allowed', decidedBy: people.bob });
    const turns = slack.api.thread(channel, threadTs).map((message) => message.text);
    expect(turns.filter((text) => text === 'Restarted the web tier.')).toHaveLength(1);
  });
});
