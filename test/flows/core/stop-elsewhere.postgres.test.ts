import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { createRuntime } from '../../../src/runtime/create-runtime.js';
import { thread } from '../../../src/store/contract/contract-fixtures.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { postgresTestSchema } from '../../support/postgres-test-database.js';
import { createTestLogger } from '../../support/test-logger.js';
import { corePolicy, requester } from './core-harness.js';

/** A tool that runs until its turn is stopped, and says when it started and when it was stopped. */
function untilStopped() {
  const events: Array<{ what: 'started' | 'stopped'; at: number }> = [];
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const tool = defineTool({
    name: 'long_job',
    description: 'Runs until stopped.',
    parameters: z.object({}),
    permission: () => ({ type: 'allow', reason: 'test' }),
    execute: (_args, context) =>
      new Promise<string>((resolve) => {
        events.push({ what: 'started', at: performance.now() });
        started();
        context.signal?.addEventListener('abort', () => {
          events.push({ what: 'stopped', at: performance.now() });
          resolve('stopped');
        });
      }),
  });
  return { tool: tool as Tool, events, running };
}

describe('a turn stopped on another replica', () => {
  it('stops where it runs within moments, not at the next lease renewal', async () => {
    const database = postgresTestSchema();
    const job = untilStopped();
    const log = createTestLogger();
    const replica = async (model: ScriptedChatModel, tools: readonly Tool[], name: string) => {
      const runtime = createRuntime({
        store: await database.open(),
        model,
        policy: corePolicy,
        tools,
        directory: { groupMembers: async () => [] },
        logger: log.logger.child({ replica: name }),
        // Renewed every ten seconds: a stop that waited for it would take that long.
        leaseMs: 30_000,
      });
      return runtime;
    };
    const a = await replica(new ScriptedChatModel([reply.toolCalls(['long_job', {}])]), [job.tool], 'a');
    const b = await replica(new ScriptedChatModel([]), [], 'b');
    try {
      const key = thread('1700.1');
      const submitted = await a.submit({
        ...key,
        triggerKey: `${key.channelId}:${key.threadTs}`,
        triggerTs: key.threadTs,
        requestedBy: requester,
        inputText: 'run the long job',
      });
      await job.running;
      const turnId = submitted.type === 'enqueued' ? submitted.turn.id : undefined;
      expect(turnId).toBeDefined();

      const stoppedAt = performance.now();
      expect(await b.stop({ turnId: turnId as string, userId: requester })).toMatchObject({
        type: 'stopped',
      });
      await expect
        .poll(() => job.events.map((event) => event.what), { timeout: 5_000 })
        .toEqual(['started', 'stopped']);
      expect((job.events[1]?.at ?? Number.POSITIVE_INFINITY) - stoppedAt).toBeLessThan(5_000);
    } finally {
      await a.shutdown(1_000);
      await b.shutdown(1_000);
    }
  });
});
