/**
 * An MCP server that asks the person who asked for the call (elicitation): a form, or a link to visit.
 * The question becomes a card in the thread that only the requester can answer, durably: the call waits
 * with nothing in memory, and runs again with the answer once it comes, however many restarts later.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { tempDir } from '../../support/temp-dir.js';
import {
  approvalActionBlocks,
  channel,
  type PostedCard,
  people,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { nextModal, submitModal } from './slack-modals.js';

const testServer = fileURLToPath(new URL('../../support/mcp/stdio-test-server.mjs', import.meta.url));
const questionCallbackId = 'holdfast.question.answer';

/** A local server whose calls the policy allows, so the only thing a call waits on is its question. */
function askingServer() {
  const dir = tempDir('holdfast-mcp-questions-');
  const callsLog = dir.file('calls.jsonl');
  writeFileSync(
    dir.file('mcp.json'),
    JSON.stringify({
      mcpServers: {
        tickets: { command: process.execPath, args: [testServer], env: { CALLS_LOG: callsLog } },
      },
    }),
  );
  writeFileSync(dir.file('policy.yml'), 'rules:\n  - tool: "tickets__*"\n    action: allow\n');
  return {
    env: { HOLDFAST_MCP_CONFIG: dir.file('mcp.json'), HOLDFAST_POLICY: dir.file('policy.yml') },
    /** Every call the server saw, with the answer it got. */
    calls: (): Array<{ tool: string; answer: { action: string; content?: unknown } }> =>
      existsSync(callsLog)
        ? readFileSync(callsLog, 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line))
        : [],
  };
}

/** The question's card: posted in the thread with its own header. */
function waitForQuestion(slack: SlackHarness, threadTs: string): Promise<PostedCard> {
  return waitForCard(slack.api, threadTs, (call) =>
    JSON.stringify(call.params.blocks ?? []).includes('A question for you'),
  );
}

function buttonLabels(card: PostedCard): string[] {
  return (approvalActionBlocks(card.call.params.blocks)[0]?.elements ?? []).map(
    (element) => (element.text as { text: string }).text,
  );
}

describe('a question from an MCP server', () => {
  it('an elicitation answered after a restart: only the requester answers, and the call runs again with the answer', async () => {
    const server = askingServer();
    const firstModel = new ScriptedChatModel([
      reply.toolCalls(['tickets__deploy', { service: 'web' }, 'call_deploy']),
    ]);
    const slack = await startSlackHarness({ model: firstModel, env: server.env });
    try {
      const threadTs = await slack.mention('deploy web', { user: people.alice });
      const card = await waitForQuestion(slack, threadTs);
      await slack.settle();

      // The card says who asks and what, and offers the requester a form; the server was told "not now".
      const shown = JSON.stringify(card.call.params.blocks);
      expect(shown).toContain('Where should web go?');
      expect(shown).toContain('*tickets*, running `tickets__deploy` for <@U0ALICE>, asks:');
      expect(buttonLabels(card)).toEqual(['Answer…', 'Decline']);
      expect(String(card.call.params.text)).toBe('<@U0ALICE>: tickets asks: Where should web go?');
      expect(server.calls()).toEqual([{ tool: 'deploy', service: 'web', answer: { action: 'cancel' } }]);
      const turn = (
        await slack.holdfast.runtime.store.turns.open(
          (await slack.holdfast.runtime.store.approvals.get(card.requestId))?.conversationId ?? '',
        )
      )[0];
      expect(turn?.status).toBe('awaiting_approval');

      // A new process on the same file: the question survives; nothing was parked in memory.
      const secondModel = new ScriptedChatModel([reply.text('Deployed web to staging.')]);
      await slack.restart({ model: secondModel });

      // Someone else cannot answer it: they are told whose it is, and no form opens for them.
      const formsBefore = slack.api.callsTo('views.open').length;
      await slack.click('edit', card, { user: people.bob });
      const refusal = await slack.api.waitFor(
        'chat.postEphemeral',
        (call) => call.params.user === people.bob,
      );
      expect(String(refusal.params.text)).toContain('This question is for <@U0ALICE>');
      expect(slack.api.callsTo('views.open')).toHaveLength(formsBefore);

      // The requester opens the form: one input per field the server asked for.
      await slack.click('edit', card, { user: people.alice });
      const form = await nextModal(slack, questionCallbackId, formsBefore);
      const inputs = form.blocks.filter((block) => block.type === 'input');
      expect(
        inputs.map((block) => [
          (block.label as { text: string }).text,
          (block.element as { type: string }).type,
        ]),
      ).toEqual([
        ['Environment', 'static_select'],
        ['Really deploy', 'radio_buttons'],
        ['Note', 'plain_text_input'],
      ]);

      // An answer the server's schema refuses stays in the form, beside the field, and changes nothing.
      const tooLong = await submitModal(
        slack,
        form,
        {
          'holdfast.question.0': { value: { option: 'staging' } },
          'holdfast.question.1': { value: { option: 'yes' } },
          'holdfast.question.2': { value: { text: 'x'.repeat(41) } },
        },
        { user: people.alice },
      );
      expect(JSON.parse(tooLong.text)).toMatchObject({
        response_action: 'errors',
        errors: { 'holdfast.question.2': expect.stringContaining('40') },
      });
      expect((await slack.holdfast.runtime.store.approvals.get(card.requestId))?.decision).toBeNull();

      const sent = await submitModal(
        slack,
        form,
        {
          'holdfast.question.0': { value: { option: 'staging' } },
          'holdfast.question.1': { value: { option: 'yes' } },
          'holdfast.question.2': { value: { text: 'before the freeze' } },
        },
        { user: people.alice },
      );
      expect(sent.status).toBe(200);
      await slack.api.waitFor(
        'chat.postMessage',
        (call) => call.params.thread_ts === threadTs && call.params.text === 'Deployed web to staging.',
      );
      await slack.settle();

      // The server was called again and got the answer; the model was asked once more, after the result.
      expect(server.calls().map((call) => call.answer)).toEqual([
        { action: 'cancel' },
        { action: 'accept', content: { environment: 'staging', confirm: true, note: 'before the freeze' } },
      ]);
      expect(firstModel.calls).toHaveLength(1);
      expect(secondModel.calls).toHaveLength(1);
      expect(String(secondModel.calls[0]?.messages.at(-1)?.content)).toContain(
        'deployed web to staging (before the freeze)',
      );

      // The card now says it was answered, by whom, without what; the thread never shows the answer.
      const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
      expect(JSON.stringify(update.params.blocks)).toContain('Answered by <@U0ALICE>');
      expect(approvalActionBlocks(update.params.blocks)).toEqual([]);
      const thread = JSON.stringify(slack.api.thread(channel, threadTs));
      expect(thread).not.toContain('before the freeze');
    } finally {
      await slack.stop();
    }
  });

  it('shows a link only to the requester, and goes on once they say they are done', async () => {
    const server = askingServer();
    const model = new ScriptedChatModel([
      reply.toolCalls(['tickets__sign_in', {}, 'call_sign_in']),
      reply.text('Signed in.'),
    ]);
    const slack = await startSlackHarness({ model, env: server.env });
    try {
      const threadTs = await slack.mention('sign in to tickets', { user: people.alice });
      const card = await waitForQuestion(slack, threadTs);
      await slack.settle();
      expect(buttonLabels(card)).toEqual(['Open link…', 'Decline']);
      // The link is nowhere in the thread.
      expect(JSON.stringify(card.call.params)).not.toContain('tickets.example.test');

      const before = slack.api.callsTo('views.open').length;
      await slack.click('edit', card, { user: people.alice });
      const form = await nextModal(slack, questionCallbackId, before);
      expect(JSON.stringify(form.blocks)).toContain('https://tickets.example.test/sign-in?state=');
      expect(form.call.params.trigger_id).toBeDefined();

      await submitModal(slack, form, {}, { user: people.alice });
      await slack.api.waitFor(
        'chat.postMessage',
        (call) => call.params.thread_ts === threadTs && call.params.text === 'Signed in.',
      );
      await slack.settle();
      // The server made a new link when asked again, and was told the person had been there.
      expect(server.calls().map((call) => call.answer.action)).toEqual(['cancel', 'accept']);
      expect(JSON.stringify(slack.api.thread(channel, threadTs))).not.toContain('tickets.example.test');
    } finally {
      await slack.stop();
    }
  });

  it('tells the server the requester declined, and the call goes on with that', async () => {
    const server = askingServer();
    const model = new ScriptedChatModel([
      reply.toolCalls(['tickets__deploy', { service: 'api' }, 'call_deploy']),
      reply.text('Not deployed: you declined.'),
    ]);
    const slack = await startSlackHarness({ model, env: server.env });
    try {
      const threadTs = await slack.mention('deploy api', { user: people.alice });
      const card = await waitForQuestion(slack, threadTs);
      await slack.settle();
      await slack.click('deny', card, { user: people.alice });
      await slack.api.waitFor(
        'chat.postMessage',
        (call) => call.params.thread_ts === threadTs && call.params.text === 'Not deployed: you declined.',
      );
      await slack.settle();
      expect(server.calls().map((call) => call.answer.action)).toEqual(['cancel', 'decline']);
      expect(String(model.calls[1]?.messages.at(-1)?.content)).toContain('not deployed: decline');
      const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
      expect(JSON.stringify(update.params.blocks)).toContain('Declined by <@U0ALICE>');
    } finally {
      await slack.stop();
    }
  });
});
