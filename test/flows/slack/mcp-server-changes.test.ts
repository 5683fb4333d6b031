import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { startMcpHttpServer } from '../../support/mcp/mcp-http-server.js';
import { tempDir } from '../../support/temp-dir.js';
import {
  approvalActionBlocks,
  channel,
  people,
  readRows,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

const testServer = fileURLToPath(new URL('../../support/mcp/stdio-test-server.mjs', import.meta.url));

function writeConfig(servers: Record<string, unknown>, policy?: string) {
  const dir = tempDir('holdfast-mcp-');
  writeFileSync(dir.file('mcp.json'), JSON.stringify({ mcpServers: servers }));
  const env: Record<string, string> = { HOLDFAST_MCP_CONFIG: dir.file('mcp.json') };
  if (policy) {
    writeFileSync(dir.file('policy.yml'), policy);
    env.HOLDFAST_POLICY = dir.file('policy.yml');
  }
  return { dir, env };
}

describe('an MCP server that changes under a pending request', () => {
  it('refuses a click on a card made for a definition the server has since changed, says what changed and shows the request again', async () => {
    const server = await startMcpHttpServer();
    const token = 'ops-mcp-bearer-7f3a9c2e41';
    const { dir, env } = writeConfig({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own reference syntax
      ops: { url: server.url, headers: { Authorization: 'Bearer ${OPS_MCP_TOKEN}' } },
    });
    writeFileSync(dir.file('ops-token'), `${token}\n`);
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops__scale', { service: 'web', replicas: 3 }, 'call_scale']),
      reply.text('Scaled.'),
    ]);
    const slack = await startSlackHarness({
      model,
      env: { ...env, OPS_MCP_TOKEN_FILE: dir.file('ops-token') },
    });
    try {
      const threadTs = await slack.mention('scale web to 3');
      const card = await waitForCard(slack.api, threadTs);
      await slack.settle();
      // The header came from the file the variable named; the card shows the server's destructive claim.
      expect(server.headers.some((headers) => headers.authorization === `Bearer ${token}`)).toBe(true);
      expect(JSON.stringify(card.call.params.blocks)).toContain('(the server marks it destructive)');

      server.describeScale('Scale a service, and delete its volumes first.');
      await slack.waitForLog((entry) => entry.msg === 'MCP server changed its tools');
      const cardsBefore = slack.api
        .callsTo('chat.postMessage')
        .filter((call) => String(call.params.text).startsWith('Approval needed')).length;
      await slack.click('allow', card);
      const told = await slack.api.waitFor('chat.postEphemeral', (call) => call.params.user === people.bob);
      await slack.settle();
      expect(String(told.params.text)).toContain('changed that tool');
      expect(String(told.params.text)).toContain('shown again in the thread');

      // The thread is told what changed, and the request is posted again for the tool as it is now.
      const notice = await slack.api.waitFor(
        'chat.postMessage',
        (call) =>
          call.params.thread_ts === threadTs && String(call.params.text).includes('changed that tool'),
      );
      expect(String(notice.params.text)).toMatch(
        /^🚫 The server behind ops__scale changed that tool after approval was asked for \(its description changed\), so approvals given so far no longer count/,
      );
      const again = await slack.api.waitFor(
        'chat.postMessage',
        (call) =>
          call.params.thread_ts === threadTs &&
          String(call.params.text).startsWith('Approval needed') &&
          slack.api
            .callsTo('chat.postMessage')
            .filter((other) => String(other.params.text).startsWith('Approval needed'))
            .indexOf(call) >= cardsBefore,
      );
      const fresh = approvalActionBlocks(again.params.blocks)[0];
      expect(fresh?.elements[0]?.value).toBe(card.requestId);
      expect(fresh?.block_id).not.toBe(card.blockId);
      expect(server.calls).toEqual([]);
      expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
        decision: null,
      });

      // A click still bound to the old definition changes nothing; the new card allows the tool as it is.
      await slack.click('allow', card);
      await vi.waitFor(() => expect(slack.api.callsTo('chat.postEphemeral')).toHaveLength(2));
      expect(server.calls).toEqual([]);
      await slack.click('allow', {
        requestId: card.requestId,
        channel: card.channel,
        ts: String(again.response.ts),
        threadTs,
        blockId: fresh?.block_id,
      });
      await slack.api.waitFor(
        'chat.postMessage',
        (call) => call.params.thread_ts === threadTs && call.params.text === 'Scaled.',
      );
      await slack.settle();
      expect(server.calls).toEqual([{ service: 'web', replicas: 3 }]);
      expect(
        slack.api
          .thread(channel, threadTs)
          .filter((message) => String(message.text).includes('changed that tool after approval')),
      ).toHaveLength(1);
      const refusals = readRows(
        slack.databasePath,
        "SELECT actor, json_extract(data_json, '$.reason') AS reason FROM audit_events WHERE kind = ?",
        'approval.refused',
      );
      expect(refusals).toEqual([
        { actor: people.bob, reason: 'definition-changed' },
        { actor: people.bob, reason: 'arguments-mismatch' },
      ]);
      expect(
        readRows(
          slack.databasePath,
          "SELECT json_extract(data_json, '$.changed') AS changed FROM audit_events WHERE kind = ?",
          'approval.rebound',
        ),
      ).toEqual([{ changed: 'its description changed' }]);
    } finally {
      await slack.stop();
      await server.close();
    }
  });
});

describe('an MCP server that adds a tool', () => {
  it('offers the new tool from the next turn on, without a restart', async () => {
    const server = await startMcpHttpServer();
    const { env } = writeConfig({ ops: { url: server.url } });
    const model = new ScriptedChatModel([reply.text('I can check status now.')]);
    const slack = await startSlackHarness({ model, env });
    try {
      server.addStatusTool();
      await slack.waitForLog((entry) => entry.msg === 'MCP server changed its tools');
      await slack.mention('what can you do?');
      await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'I can check status now.');
      await slack.settle();

      const offered = model.calls[0]?.tools?.map((tool) => tool.name) ?? [];
      expect(offered).toEqual(expect.arrayContaining(['ops__scale', 'ops__status']));
      expect(model.calls[0]?.tools?.find((tool) => tool.name === 'ops__status')?.parameters).toMatchObject({
        properties: { service: { type: 'string' } },
      });
    } finally {
      await slack.stop();
      await server.close();
    }
  });
});

describe('a local MCP server that crashes', () => {
  it('fails the call in flight, logs its stderr redacted, and starts the server again', async () => {
    const secret = 'crashy-token-5be1d0c8a2f4';
    const { env } = writeConfig(
      {
        crashy: {
          command: process.execPath,
          args: [testServer],
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own reference syntax
          env: { CRASHY_TOKEN: '${CRASHY_TOKEN}' },
        },
      },
      'rules:\n  - tool: "crashy__*"\n    action: allow\n',
    );
    const model = new ScriptedChatModel([
      reply.toolCalls(['crashy__crash', { why: 'testing' }, 'call_crash']),
      reply.text('The server crashed.'),
      reply.toolCalls(['crashy__hello', { name: 'again' }, 'call_hello']),
      reply.text('It answers again.'),
    ]);
    const slack = await startSlackHarness({ model, env: { ...env, CRASHY_TOKEN: secret } });

    await slack.mention('crash the server');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'The server crashed.');
    await slack.settle();
    expect(String(model.calls[1]?.messages.at(-1)?.content)).toMatch(
      /^Error: crashy__crash failed: MCP server "crashy" did not finish the call: the server stopped during the call, so whether it took effect is unknown/,
    );
    expect(readRows(slack.databasePath, 'SELECT status FROM tool_executions')).toEqual([
      { status: 'finished' },
    ]);

    await slack.waitForLog((entry) => entry.msg === 'MCP server is back');
    await slack.mention('say hello');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'It answers again.');
    await slack.settle();
    expect(model.calls[3]?.messages.at(-1)).toMatchObject({ content: 'hello again' });

    const stderr = slack.log.entries.filter((entry) => entry.msg === 'MCP server said');
    expect(stderr.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(stderr)).toContain('crashing-test started with token [redacted');
    expect(JSON.stringify(slack.log.entries)).not.toContain(secret);
  });
});
