import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { tempDir } from '../../support/temp-dir.js';
import { startLocalHoldfast } from './local-holdfast.js';
import { buttonOf, waitForState } from './local-http.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('MCP servers in the local workspace', () => {
  it('asks for an MCP tool on a card, and runs it once allowed', async () => {
    const dir = tempDir('holdfast-local-mcp-');
    writeFileSync(
      dir.file('mcp.json'),
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
      }),
    );
    const model = new ScriptedChatModel([
      reply.toolCalls(['everything__echo', { message: 'from the local workspace' }, 'call_echo']),
      reply.text('Echoed locally.'),
    ]);
    const { tab } = await startLocalHoldfast('holdfast-local-mcp-', {
      env: { HOLDFAST_MCP_CONFIG: dir.file('mcp.json') },
      model,
    });

    await tab.post('/ui/message', {
      user: 'U0ALICE',
      channel: 'C0OPS',
      text: '<@U0HOLDFAST> echo something',
    });
    const card = await waitForState(
      tab,
      'U0BOB',
      (state) => state.messages.find((message) => buttonOf(message, 'holdfast.approval.allow')),
      'the approval card',
    );
    expect(card.text).toContain('everything__echo');
    const allow = buttonOf(card, 'holdfast.approval.allow');
    await tab.post('/ui/click', {
      user: 'U0BOB',
      channel: card.channel,
      message_ts: card.ts,
      action_id: 'holdfast.approval.allow',
      value: allow?.element.value,
      block_id: allow?.block.block_id,
    });
    await waitForState(
      tab,
      'U0ALICE',
      (state) => state.messages.find((message) => message.text === 'Echoed locally.'),
      'the answer',
    );

    expect(model.calls[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_echo',
      content: 'Echo: from the local workspace',
      outcome: { type: 'succeeded' },
    });
  });
});

describe('a question from an MCP server in the local workspace', () => {
  it('opens the form for the requester, and the call goes on with the answer', async () => {
    const dir = tempDir('holdfast-local-mcp-question-');
    const testServer = fileURLToPath(new URL('../../support/mcp/stdio-test-server.mjs', import.meta.url));
    writeFileSync(
      dir.file('mcp.json'),
      JSON.stringify({ mcpServers: { tickets: { command: process.execPath, args: [testServer] } } }),
    );
    writeFileSync(dir.file('policy.yml'), 'rules:\n  - tool: "tickets__*"\n    action: allow\n');
    const model = new ScriptedChatModel([
      reply.toolCalls(['tickets__deploy', { service: 'web' }, 'call_deploy']),
      reply.text('Deployed locally.'),
    ]);
    const { tab } = await startLocalHoldfast('holdfast-local-mcp-question-', {
      env: { HOLDFAST_MCP_CONFIG: dir.file('mcp.json'), HOLDFAST_POLICY: dir.file('policy.yml') },
      model,
    });

    await tab.post('/ui/message', { user: 'U0ALICE', channel: 'C0OPS', text: '<@U0HOLDFAST> deploy web' });
    const card = await waitForState(
      tab,
      'U0ALICE',
      (state) => state.messages.find((message) => buttonOf(message, 'holdfast.approval.edit')),
      'the question card',
    );
    expect(card.text).toContain('Where should web go?');
    const answer = buttonOf(card, 'holdfast.approval.edit');
    await tab.post('/ui/click', {
      user: 'U0ALICE',
      channel: card.channel,
      message_ts: card.ts,
      action_id: 'holdfast.approval.edit',
      value: answer?.element.value,
      block_id: answer?.block.block_id,
    });
    const opened = await waitForState(
      tab,
      'U0ALICE',
      (state) =>
        (state as unknown as { modal: { id: string; view: { callback_id: string } } | null }).modal ??
        undefined,
      'the question form',
    );
    expect(opened.view.callback_id).toBe('holdfast.question.answer');
    const submitted = await tab.post('/ui/submit', {
      user: 'U0ALICE',
      view_id: opened.id,
      values: {
        'holdfast.question.0': { value: { option: 'production' } },
        'holdfast.question.1': { value: { option: 'no' } },
      },
    });
    expect(JSON.parse(submitted.text)).toEqual({ ok: true });
    await waitForState(
      tab,
      'U0ALICE',
      (state) => state.messages.find((message) => message.text === 'Deployed locally.'),
      'the answer',
    );
    expect(model.calls[1]?.messages.at(-1)).toMatchObject({
      role: 'tool',
      toolCallId: 'call_deploy',
      content: 'deployed web to production',
    });
  });
});
