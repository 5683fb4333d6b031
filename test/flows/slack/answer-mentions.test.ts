import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { channel, oncallGroup, people, startSlackHarness } from './slack-harness.js';

describe('mentions in an answer', () => {
  it('notify the person who asked and the people they mentioned, and nobody else', async () => {
    const model = new ScriptedChatModel([
      reply.text(
        `<@${people.alice}> done. <@${people.bob}> please confirm. Also @alice and @bob, not \`@alice\`. ` +
          `cc <@${people.carol}> <!subteam^${oncallGroup}> <!here> <!channel>`,
      ),
    ]);
    const slack = await startSlackHarness({ model });

    const threadTs = await slack.mention(`restart the api, then tell <@${people.bob}>`);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === threadTs);
    await slack.settle();

    // The model read whom the request mentioned, with the ids it may use.
    expect(model.calls[0]?.messages.at(-1)).toEqual({
      role: 'user',
      content: `@alice: restart the api, then tell @bob\n\n(mentioned in this request: @bob <@${people.bob}>)`,
    });
    const [answer] = slack.api.thread(channel, threadTs);
    const shown = JSON.stringify(answer?.blocks);
    const pings = [...shown.matchAll(/<(@[UW][A-Z0-9]+|!subteam\^[A-Z0-9]+|![a-z]+)(?:\|[^>]*)?>/g)].map(
      (match) => match[1],
    );
    expect(pings).toEqual([`@${people.alice}`, `@${people.bob}`, `@${people.alice}`, `@${people.bob}`]);
    // The rest are shown as text: readable, and notifying nobody.
    expect(shown).toContain('`@alice`');
    expect(shown).toContain(`&lt;@${people.carol}&gt;`);
  });

  it('lets no one else be notified by a request that mentions nobody', async () => {
    const model = new ScriptedChatModel([reply.text(`<@${people.alice}> and <@${people.bob}>: done.`)]);
    const slack = await startSlackHarness({ model });
    const threadTs = await slack.mention('restart the api');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === threadTs);
    await slack.settle();
    const [answer] = slack.api.thread(channel, threadTs);
    const shown = JSON.stringify(answer?.blocks);
    expect(shown).toContain(`<@${people.alice}>`);
    expect(shown).not.toContain(`<@${people.bob}>`);
    expect(model.calls[0]?.messages.at(-1)).toEqual({ role: 'user', content: '@alice: restart the api' });
  });

  it('asks Slack for a name once per process, though the mention and its answer both need it', async () => {
    const model = new ScriptedChatModel([reply.text('done'), reply.text('done again')]);
    const slack = await startSlackHarness({ model });

    // The name is read before the ack (to show the model who asks) and again for the answer's pings.
    for (const text of ['restart the api', 'and the worker']) {
      const threadTs = await slack.mention(text);
      await slack.api.waitFor('chat.postMessage', (call) => call.params.thread_ts === threadTs);
    }
    await slack.settle();

    expect(slack.api.callsTo('users.info').map((call) => call.params.user)).toEqual([people.alice]);
  });
});
