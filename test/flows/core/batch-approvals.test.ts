import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { countingTool, safeTool, startCoreHarness, threadId, toolResults } from './core-harness.js';

const thread = '1700000000.000100';

describe('an assistant message with several calls that need people', () => {
  it('asks for all of them at once, in one commit, and runs none until every one is decided', async () => {
    const restart = countingTool('restart_service');
    const model = new ScriptedChatModel([
      reply.toolCalls(
        ['restart_service', { service: 'web' }, 'call_web'],
        ['restart_service', { service: 'db' }, 'call_db'],
      ),
      reply.text('Both restarted.'),
    ]);
    const harness = startCoreHarness({ model, tools: [restart.tool] });

    await harness.submit(thread, 'restart web and db');
    const suspended = await harness.nextOutcome();

    expect(suspended.type).toBe('awaiting-approval');
    if (suspended.type !== 'awaiting-approval') return;
    expect(suspended.approvals.map((approval) => approval.toolCallId)).toEqual(['call_web', 'call_db']);
    const pending = await harness.store.approvals.pending({ conversationId: threadId(thread) });
    expect(pending.map((approval) => approval.toolCallId)).toEqual(['call_web', 'call_db']);
    // The assistant message and both rows were written with the suspension, and nothing has run.
    expect((await harness.messages(thread)).map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(restart.runs).toEqual([]);

    const [web, db] = suspended.approvals;
    expect(await harness.decide(web?.requestId ?? '', 'allow')).toMatchObject({
      type: 'decided',
      turnReady: false,
    });
    expect(restart.runs).toEqual([]);
    expect(await harness.decide(db?.requestId ?? '', 'allow')).toMatchObject({
      type: 'decided',
      turnReady: true,
    });

    expect(await harness.nextOutcome()).toMatchObject({ type: 'completed', answer: 'Both restarted.' });
    expect(restart.runs).toEqual(['web', 'db']);
    expect(model.calls).toHaveLength(2);
  });

  it('runs what needs nobody before the first request, keeps its result, and waits with the rest', async () => {
    const status = safeTool('read_status');
    const restart = countingTool('restart_service');
    const model = new ScriptedChatModel([
      reply.toolCalls(
        ['read_status', { service: 'web' }, 'call_check'],
        ['restart_service', { service: 'web' }, 'call_restart'],
        ['read_status', { service: 'web' }, 'call_verify'],
      ),
      reply.text('Restarted and verified.'),
    ]);
    const harness = startCoreHarness({ model, tools: [status.tool, restart.tool] });

    await harness.submit(thread, 'check, restart and verify web');
    const suspended = await harness.nextOutcome();

    expect(suspended.type).toBe('awaiting-approval');
    expect(status.runs).toEqual(['web']);
    expect([...toolResults(await harness.messages(thread)).keys()]).toEqual(['call_check']);
    if (suspended.type !== 'awaiting-approval') return;
    await harness.decide(suspended.approval.requestId, 'allow');

    expect(await harness.nextOutcome()).toMatchObject({ type: 'completed' });
    expect(status.runs).toEqual(['web', 'web']);
    expect(restart.runs).toEqual(['web']);
    expect([...toolResults(await harness.messages(thread)).keys()]).toEqual([
      'call_check',
      'call_restart',
      'call_verify',
    ]);
  });

  it('tells the model which calls were denied and runs the allowed ones', async () => {
    const restart = countingTool('restart_service');
    const model = new ScriptedChatModel([
      reply.toolCalls(
        ['restart_service', { service: 'web' }, 'call_web'],
        ['restart_service', { service: 'db' }, 'call_db'],
      ),
      reply.text('Restarted web; db was denied.'),
    ]);
    const harness = startCoreHarness({ model, tools: [restart.tool] });

    await harness.submit(thread, 'restart web and db');
    const suspended = await harness.nextOutcome();
    if (suspended.type !== 'awaiting-approval') throw new Error('expected a suspension');
    const [web, db] = suspended.approvals;
    await harness.decide(db?.requestId ?? '', 'deny');
    await harness.decide(web?.requestId ?? '', 'allow');

    expect(await harness.nextOutcome()).toMatchObject({ type: 'completed' });
    expect(restart.runs).toEqual(['web']);
    expect(toolResults(await harness.messages(thread)).get('call_db')).toMatch(/^Not run: denied by/);
  });
});
