import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { createDelegateTool } from '../../../src/tools/delegate.js';
import { never, safeTool, startCoreHarness, threadId, toolResults } from './core-harness.js';

const thread = '1700000000.000100';

describe('a turn that would spend without end', () => {
  it('stops a model that delegates forever at the turn budget, counting the nested agents too', async () => {
    // Every call, main agent or helper, answers with forty more delegations: a hostile endpoint.
    const delegations = (request: ChatRequest) =>
      reply.toolCalls(
        ...Array.from({ length: 40 }, (_, index): [string, unknown, string] => [
          'delegate',
          { task: 'do it again' },
          `call_${request.messages.length}_${index}`,
        ]),
      );
    const model = new ScriptedChatModel(Array.from({ length: 600 }, () => delegations));
    const tools: Tool[] = [];
    tools.push(createDelegateTool(() => tools) as Tool);
    const harness = startCoreHarness({ model, tools, budget: { modelCalls: 12, toolCalls: 100 } });

    await harness.submit(thread, 'do everything');
    const outcome = await harness.nextOutcome();

    expect(outcome).toMatchObject({ type: 'failed', error: { code: 'turn_budget_exceeded' } });
    expect(model.calls).toHaveLength(12);
    // No call is left without a result, or the thread's next model call would be refused.
    const messages = await harness.messages(thread);
    const results = toolResults(messages);
    const calls = messages.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []) : [],
    );
    expect(calls).toHaveLength(40);
    expect(calls.filter((call) => !results.has(call.id))).toEqual([]);
  });

  it('refuses the calls past the tool budget with a result the model reads, and audits it', async () => {
    const { tool, runs } = safeTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(
        ...Array.from({ length: 6 }, (_, index): [string, unknown] => [
          'read_status',
          { service: `web-${index}` },
        ]),
      ),
      reply.text('Checked what I could.'),
    ]);
    const harness = startCoreHarness({ model, tools: [tool], budget: { modelCalls: 10, toolCalls: 4 } });

    await harness.submit(thread, 'check every web host');
    expect(await harness.nextOutcome()).toMatchObject({ type: 'completed' });

    expect(runs).toEqual(['web-0', 'web-1', 'web-2', 'web-3']);
    const results = toolResults(await harness.messages(thread));
    expect(results.get('call_5')).toMatch(/^Not run: this request has used its budget of 4 tool calls/);
    expect(results.get('call_6')).toMatch(/^Not run: this request has used its budget of 4 tool calls/);
    const audit = await harness.store.audit.list({ conversationId: threadId(thread) });
    expect(audit.filter((event) => event.kind === 'turn.budget_exhausted')).toHaveLength(2);
  });

  it('keeps a nested agent’s answer to a bounded size for its parent', async () => {
    const model = new ScriptedChatModel([
      reply.toolCalls(['delegate', { task: 'summarise the logs' }]),
      reply.text('x'.repeat(50_000)),
      reply.text('Summary received.'),
    ]);
    const tools = [createDelegateTool(() => []) as Tool];
    const harness = startCoreHarness({ model, tools });

    await harness.submit(thread, 'summarise');
    expect(await harness.nextOutcome()).toMatchObject({ type: 'completed' });

    const result = toolResults(await harness.messages(thread)).get('call_1') ?? '';
    expect(result.length).toBeLessThan(8_200);
    expect(result).toMatch(
      /\[… cut: the nested agent produced 50000 characters; only the first 8000 are kept\.\]$/,
    );
  });
});

describe('how much one thread and one person may queue', () => {
  it('refuses messages past the limit, audited, and takes new ones once the thread is free again', async () => {
    const model = new ScriptedChatModel([() => never()]);
    const harness = startCoreHarness({ model, tools: [], admission: { perThread: 3, perUser: 50 } });

    const results = [];
    for (let index = 1; index <= 5; index += 1) {
      results.push(await harness.submit(thread, `message ${index}`, { ts: `1700000000.00010${index}` }));
    }

    expect(results.map((result) => result.type)).toEqual([
      'enqueued',
      'enqueued',
      'enqueued',
      'refused',
      'refused',
    ]);
    expect(results[3]).toMatchObject({ type: 'refused', reason: 'thread-busy', unfinished: 3 });
    const audit = await harness.store.audit.list();
    expect(audit.filter((event) => event.kind === 'turn.refused').map((event) => event.data)).toEqual([
      { reason: 'thread-busy', unfinished: 3, triggerKey: 'C0OPS:1700000000.000104' },
      { reason: 'thread-busy', unfinished: 3, triggerKey: 'C0OPS:1700000000.000105' },
    ]);
    // Another thread is not affected by this one being full.
    expect((await harness.submit('1700000000.000900', 'elsewhere')).type).toBe('enqueued');
  });

  it('counts one person’s unfinished requests across threads', async () => {
    const model = new ScriptedChatModel([() => never(), () => never()]);
    const harness = startCoreHarness({ model, tools: [], admission: { perThread: 10, perUser: 2 } });

    expect((await harness.submit('1700000000.000100', 'one')).type).toBe('enqueued');
    expect((await harness.submit('1700000000.000200', 'two')).type).toBe('enqueued');
    expect(await harness.submit('1700000000.000300', 'three')).toMatchObject({
      type: 'refused',
      reason: 'user-busy',
      unfinished: 2,
    });
    expect((await harness.submit('1700000000.000400', 'from someone else', { user: 'UOTHER' })).type).toBe(
      'enqueued',
    );
  });
});
