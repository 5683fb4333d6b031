import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { channel, startSlackHarness } from './slack-harness.js';

describe('mentions in answers', () => {
  it('an answer that names a user group, a person by id or @here pings nobody', async () => {
    // What a tool's output or a prompt injection could make the model write.
    const answer = 'Paging <!subteam^S0ONCALL|oncall>, <@U0BOB> and <!here>: the disk is full.';
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text(answer)]) });

    const threadTs = await slack.mention('how full is the disk?');
    await slack.api.waitFor('chat.postMessage', (call) =>
      String(call.params.text).includes('the disk is full'),
    );
    await slack.settle();

    const [posted] = slack.api.thread(channel, threadTs);
    const shown = JSON.stringify({ text: posted?.text, blocks: posted?.blocks });
    expect(shown).not.toMatch(/<!subteam\^|<@U0BOB|<!here/);
    expect(posted?.text).toContain('the disk is full');
  });
});
