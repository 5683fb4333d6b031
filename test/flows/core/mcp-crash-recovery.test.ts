import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { interruptedResult } from '../../../src/agent/tool-runtime.js';
import type { McpServerConfig } from '../../../src/config-mcp-servers.js';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { connectMcpServers } from '../../../src/mcp/index.js';
import { startMcpHttpServer } from '../../support/mcp/mcp-http-server.js';
import { createTestLogger } from '../../support/test-logger.js';
import { startCoreHarness, toolResults } from './core-harness.js';

const afterLease = 5 * 60_000 + 1;

async function opsTools(url: string) {
  const config: McpServerConfig = {
    type: 'http',
    name: 'ops',
    url,
    headers: {},
    optional: false,
    trustAnnotations: false,
    timeoutMs: 60_000,
  };
  const source = await connectMcpServers([config], {
    logger: createTestLogger().logger,
    redact: (text) => text,
    baseEnv: {},
  });
  onTestFinished(() => source.close());
  return source.tools();
}

describe('an MCP call in flight when the process dies', () => {
  it('is never sent again: the turn resumes with "outcome unknown" against the reconnected server', async () => {
    const server = await startMcpHttpServer();
    onTestFinished(() => server.close());
    server.holdCalls();
    const model = new ScriptedChatModel([reply.toolCalls(['ops__scale', { service: 'web', replicas: 0 }])]);
    const core = startCoreHarness({ model, tools: await opsTools(server.url) });
    const threadTs = '1767220400.000300';

    await core.submit(threadTs, 'scale web down');
    const suspended = await core.nextOutcome();
    if (suspended.type !== 'awaiting-approval')
      throw new Error(`expected a suspension, got ${suspended.type}`);
    expect(suspended.approval.toolName).toBe('ops__scale');
    expect((await core.decide(suspended.approval.requestId, 'allow')).type).toBe('decided');
    await vi.waitFor(() => expect(server.calls).toHaveLength(1));

    // A new process, with its own connection to the server.
    const nextModel = new ScriptedChatModel([reply.text('The scale-down may or may not have happened.')]);
    await core.crash({ model: nextModel, tools: await opsTools(server.url) });
    core.clock.advance(afterLease);
    expect((await core.runtime.recover()).rerun).toBe(1);
    expect((await core.nextOutcome()).type).toBe('completed');

    expect(server.calls).toEqual([{ service: 'web', replicas: 0 }]);
    expect(toolResults(await core.messages(threadTs)).get('call_1')).toBe(interruptedResult);
    expect(toolResults(nextModel.calls[0]!.messages).get('call_1')).toMatch(/^interrupted: outcome unknown/);
  });
});
