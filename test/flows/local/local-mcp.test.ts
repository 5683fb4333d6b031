import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
