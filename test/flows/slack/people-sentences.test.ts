import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { createDemoChatModel } from '../../../src/local/demo-chat-model.js';
import {
  channel,
  type PostedCard,
  people,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { denyWithReason, nextModal, submitModal } from './slack-modals.js';

/**
 * The demo model answers from its calls' results, as a model quoting them would: whatever those results
 * say reaches the thread, so they must be sentences for people.
 */
async function pendingCommand(command: string) {
  const slack = await startSlackHarness({ model: createDemoChatModel() });
  const threadTs = await slack.mention(`run \`${command}\``);
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  return { slack, threadTs, card };
}

/** The answer the thread got: the bot's last post in it that is not a card. */
async function answerIn(slack: SlackHarness, threadTs: string, starts: string): Promise<string> {
  const answer = await slack.api.waitFor(
    'chat.postMessage',
    (call) =>
      call.params.channel === channel &&
      call.params.thread_ts === threadTs &&
      String(call.params.text).includes(starts),
  );
  await slack.settle();
  return String(answer.params.text);
}

async function editTo(slack: SlackHarness, card: PostedCard, command: string): Promise<void> {
  const before = slack.api.callsTo('views.open').length;
  await slack.click('edit', card, { user: people.bob });
  const modal = await nextModal(slack, 'holdfast.approval.edit', before);
  const submitted = await submitModal(
    slack,
    modal,
    { 'holdfast.edit.0': { value: { text: command } } },
    { user: people.bob },
  );
  expect(submitted.status).toBe(200);
}

describe('what a thread is told about a call', () => {
  it('names the person who denied it, never their id, and keeps the model’s instructions out', async () => {
    const { slack, threadTs, card } = await pendingCommand('systemctl restart web');

    await denyWithReason(slack, card, { reason: 'not during the freeze' });
    const answer = await answerIn(slack, threadTs, 'was not run');

    expect(answer).toContain('denied by bob, who said: "not during the freeze"');
    expect(answer).not.toMatch(/U0BOB|<@/);
    expect(answer).not.toContain('Do not retry');
    expect(answer).not.toContain('[for the assistant only]');
  });

  it('reads an edited call as what changed, by whom (the edit form allows the edited call)', async () => {
    const { slack, threadTs, card } = await pendingCommand('echo proposed');

    await editTo(slack, card, 'echo edited');
    const answer = await answerIn(slack, threadTs, 'Edited before approval');

    expect(answer).toContain(
      'Edited before approval by bob: changed `command` from "echo proposed" to "echo edited".',
    );
    expect(answer).not.toMatch(/Proposed:|Used instead:|U0BOB|<@/);
    expect(answer).not.toContain('[for the assistant only]');
  });
});

describe('an answer that quotes a result whole', () => {
  it('reaches the thread without the lines meant for the model', async () => {
    const quoted =
      'The restart was interrupted: outcome unknown.\n' +
      '[for the assistant only] Tell the user, and ask them to check the outcome before retrying.\n\n' +
      'Check the service before trying again.';
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text(quoted)]) });
    const threadTs = await slack.mention('what happened to the restart?');

    const answer = await answerIn(slack, threadTs, 'interrupted');
    expect(answer).toBe(
      'The restart was interrupted: outcome unknown.\n\nCheck the service before trying again.',
    );
  });
});
