import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { tempDir } from '../../support/temp-dir.js';
import {
  approvalButtons,
  channel,
  people,
  readRows,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

const require = createRequire(import.meta.url);
const everythingServer = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const probeToken = 'mcp-probe-0123456789abcdef';

/** `HOLDFAST_MCP_CONFIG` naming the reference "everything" server over stdio, and a policy for it. */
function everythingConfig(policy?: string): Record<string, string> {
  const dir = tempDir('holdfast-mcp-');
  const configFile = dir.file('mcp.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      mcpServers: {
        everything: {
          command: process.execPath,
          args: [everythingServer, 'stdio'],
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own reference syntax
          env: { MCP_PROBE_TOKEN: '${MCP_PROBE_TOKEN}' },
        },
      },
    }),
  );
  const env: Record<string, string> = { HOLDFAST_MCP_CONFIG: configFile, MCP_PROBE_TOKEN: probeToken };
  if (policy) {
    writeFileSync(dir.file('policy.yml'), policy);
    env.HOLDFAST_POLICY = dir.file('policy.yml');
  }
  return env;
}

describe('an MCP server as a tool source', () => {
  it('asks for an MCP tool, survives a restart of the whole app, and runs it once on the click', async () => {
    const firstModel = new ScriptedChatModel([
      reply.toolCalls(['everything__echo', { message: 'hello from slack' }, 'call_echo']),
    ]);
    const slack = await startSlackHarness({ model: firstModel, env: everythingConfig() });
    // The model is offered the server's tool under its own name, with the server's input schema.
    const threadTs = await slack.mention('echo something through the everything server');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();
    const offered = firstModel.calls[0]?.tools?.find((tool) => tool.name === 'everything__echo');
    expect(offered?.parameters).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
    });
    expect(String(card.call.params.text)).toContain('everything__echo');
    expect(JSON.stringify(card.call.params.blocks)).toContain('call echo on the MCP server everything');
    // The card names the server: each MCP tool asks under the permission type `mcp:<server>`.
    expect(JSON.stringify(card.call.params.blocks)).toContain('*Permission*\\nmcp:everything');

    const secondModel = new ScriptedChatModel([reply.text('The server echoed it.')]);
    await slack.restart({ model: secondModel });
    await slack.click('allow', card);
    await slack.api.waitFor(
      'chat.postMessage',
      (call) => call.params.thread_ts === threadTs && call.params.text === 'The server echoed it.',
    );
    await slack.settle();

    expect(firstModel.calls).toHaveLength(1);
    expect(secondModel.calls[0]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'call_echo',
      content: 'Echo: hello from slack',
      outcome: { type: 'succeeded' },
    });
    expect(readRows(slack.databasePath, 'SELECT tool_name, status FROM tool_executions')).toEqual([
      { tool_name: 'everything__echo', status: 'finished' },
    ]);
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(String(update.params.text)).toContain(`Allowed by <@${people.bob}>`);
    expect(approvalButtons(update.params.blocks)).toEqual([]);
  });

  it('runs a tool the policy allows by glob without a card, and redacts a secret in its output', async () => {
    vi.stubEnv('HOLDFAST_PRIVATE_SETTING', 'kept-from-mcp-servers');
    const model = new ScriptedChatModel([
      reply.toolCalls(['everything__get-env', {}, 'call_env']),
      reply.text('Read the environment.'),
    ]);
    const slack = await startSlackHarness({
      model,
      env: everythingConfig('rules:\n  - tool: "everything__get-*"\n    action: allow\n'),
    });
    const threadTs = await slack.mention('what environment does the server see?');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Read the environment.');
    await slack.settle();

    expect(readRows(slack.databasePath, 'SELECT request_id FROM approvals')).toEqual([]);
    const result = String(model.calls[1]?.messages.at(-1)?.content);
    // The variable its entry named reached the server, and its value (a configured secret) went no further.
    expect(result).toContain('MCP_PROBE_TOKEN');
    expect(result).not.toContain(probeToken);
    expect(result).toContain('[redacted');
    // Nothing else of holdfast's environment did.
    expect(result).not.toContain('kept-from-mcp-servers');
    const stored = readRows(slack.databasePath, 'SELECT content FROM messages WHERE role = ?', 'tool');
    expect(JSON.stringify(stored)).not.toContain(probeToken);
    expect(
      slack.api
        .thread(channel, threadTs)
        .map((message) => message.text)
        .join('\n'),
    ).not.toContain(probeToken);
  });

  it('refuses arguments that do not fit the server schema before anyone is asked', async () => {
    const model = new ScriptedChatModel([
      reply.toolCalls(['everything__get-sum', { a: 'one', b: 2 }, 'call_sum']),
      reply.text('The arguments were wrong.'),
    ]);
    const slack = await startSlackHarness({ model, env: everythingConfig() });
    await slack.mention('add one and two');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'The arguments were wrong.');
    await slack.settle();

    expect(readRows(slack.databasePath, 'SELECT request_id FROM approvals')).toEqual([]);
    expect(String(model.calls[1]?.messages.at(-1)?.content)).toMatch(
      /^Error: invalid arguments for everything__get-sum:\narguments\/a must be number/,
    );
  });

  it('starts without an optional server that cannot, and /health says so', async () => {
    const dir = tempDir('holdfast-mcp-');
    writeFileSync(
      dir.file('mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [everythingServer, 'stdio'] },
          spare: { command: process.execPath, args: ['-e', 'process.exit(2)'], optional: true },
        },
      }),
    );
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([]),
      env: { HOLDFAST_MCP_CONFIG: dir.file('mcp.json') },
    });

    const health = await fetch(new URL('/health', slack.eventsUrl));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      ok: true,
      mcpServers: {
        everything: { ok: true, state: expect.stringMatching(/^connected, \d+ tools$/) },
        spare: { ok: false, state: expect.stringMatching(/^unavailable: /) },
      },
    });
    expect(
      slack.log.entries.some(
        (entry) => entry.msg === 'optional MCP server is unavailable; holdfast starts without its tools',
      ),
    ).toBe(true);
  });
});
