import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatMessage } from '../../../src/agent/chat-model.js';
import { hashArguments } from '../../../src/agent/hash-arguments.js';
import type { Tool } from '../../../src/agent/tool.js';
import { ModelUnavailableError, reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { countingTool, startCoreHarness, threadId, toolResults } from './core-harness.js';
import { startSuspendedRestart } from './start-suspended-restart.js';

/** Every assistant tool call in the transcript is followed by exactly one result for it. */
function everyCallAnswered(messages: readonly ChatMessage[]): boolean {
  const results = toolResults(messages);
  return messages.every(
    (message) =>
      message.role !== 'assistant' || (message.toolCalls ?? []).every((call) => results.has(call.id)),
  );
}

describe('recovery', () => {
  it('resumes two interleaved suspended conversations correctly with room for one agent', async () => {
    const restart = countingTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['restart_service', { service: 'web' }]),
      reply.toolCalls(['restart_service', { service: 'db' }]),
      reply.text('web is back'),
      reply.text('db is back'),
    ]);
    const core = startCoreHarness({ model, tools: [restart.tool], agentCacheSize: 1 });
    const webThread = '1767220300.000100';
    const dbThread = '1767220300.000200';

    await core.submit(webThread, 'restart web');
    const web = await core.nextOutcome();
    await core.submit(dbThread, 'restart db');
    const db = await core.nextOutcome();
    if (web.type !== 'awaiting-approval' || db.type !== 'awaiting-approval') {
      throw new Error(`expected two suspensions, got ${web.type} and ${db.type}`);
    }

    expect((await core.decide(web.approval.requestId, 'allow')).type).toBe('decided');
    expect((await core.nextOutcome()).type).toBe('completed');
    expect((await core.decide(db.approval.requestId, 'allow')).type).toBe('decided');
    expect((await core.nextOutcome()).type).toBe('completed');

    expect(restart.runs).toEqual(['web', 'db']);
    // The single slot was rebuilt on every switch: eviction really happened and cost nothing.
    expect(core.runtime.agents.size).toBe(1);
    expect(core.runtime.agents.builds).toBeGreaterThanOrEqual(3);
    const webMessages = await core.messages(webThread);
    const dbMessages = await core.messages(dbThread);
    expect(toolResults(webMessages).get('call_1')).toBe('restarted web');
    expect(toolResults(dbMessages).get('call_1')).toBe('restarted db');
    expect(webMessages.at(-1)).toEqual({ role: 'assistant', content: 'web is back' });
    expect(dbMessages.at(-1)).toEqual({ role: 'assistant', content: 'db is back' });
    // Each resume showed the model its own conversation only.
    expect(toolResults(model.calls[2]!.messages).get('call_1')).toBe('restarted web');
    expect(toolResults(model.calls[3]!.messages).get('call_1')).toBe('restarted db');
  });

  it('restores kv written before the turn asked, when it resumes after a restart', async () => {
    const prepare = defineTool({
      name: 'prepare_restart',
      description: 'Picks a maintenance window.',
      parameters: z.object({ service: z.string() }),
      permission: () => ({ type: 'allow', reason: 'safe' }),
      execute: (args, ctx) => {
        ctx.kv.set('window', { service: args.service, slot: 'w-17' });
        return 'window w-17 reserved';
      },
    }) as Tool;
    const runs: unknown[] = [];
    const restart = defineTool({
      name: 'restart_service',
      description: 'Restarts a service in the reserved window.',
      parameters: z.object({ service: z.string() }),
      permission: (args) => ({ type: 'ask', permissionType: 'restart', summary: `restart ${args.service}` }),
      execute: (args, ctx) => {
        const window = ctx.kv.get<{ slot: string }>('window');
        runs.push(window);
        return `restarted ${args.service} in ${window?.slot ?? 'no window'}`;
      },
    }) as Tool;
    const model = new ScriptedChatModel([
      reply.toolCalls(
        ['prepare_restart', { service: 'web' }, 'call_prepare'],
        ['restart_service', { service: 'web' }, 'call_restart'],
      ),
    ]);
    const core = startCoreHarness({ model, tools: [prepare, restart] });
    const threadTs = '1767220300.000300';

    await core.submit(threadTs, 'restart web in a window');
    const suspended = await core.nextOutcome();
    if (suspended.type !== 'awaiting-approval')
      throw new Error(`expected a suspension, got ${suspended.type}`);
    const snapshot = core.db
      .prepare('SELECT kv_snapshot_json FROM approvals WHERE request_id = ?')
      .get(suspended.approval.requestId) as { kv_snapshot_json: string };
    expect(JSON.parse(snapshot.kv_snapshot_json).values.window).toEqual({ service: 'web', slot: 'w-17' });

    const nextModel = new ScriptedChatModel([reply.text('restarted in window w-17')]);
    await core.reopen({ model: nextModel });
    expect((await core.decide(suspended.approval.requestId, 'allow')).type).toBe('decided');
    expect((await core.nextOutcome()).type).toBe('completed');

    expect(runs).toEqual([{ service: 'web', slot: 'w-17' }]);
    expect(toolResults(await core.messages(threadTs)).get('call_restart')).toBe('restarted web in w-17');
    const conversation = await core.store.conversations.get(threadId(threadTs));
    expect(conversation?.kv.values.window).toEqual({ service: 'web', slot: 'w-17' });
    expect(nextModel.calls).toHaveLength(1);
  });

  it('runs a message sent while the thread waits as the next turn, after the resumed one', async () => {
    const threadTs = '1767220300.000400';
    const {
      restart,
      model,
      core,
      suspended: first,
    } = await startSuspendedRestart({
      threadTs,
      answers: [reply.text('web restarted'), reply.text('db looks fine')],
    });
    const queued = await core.submit(threadTs, 'and how is db?', { ts: '1767220300.000500' });
    expect(queued.type).toBe('enqueued');
    await core.runtime.idle();
    expect(model.calls).toHaveLength(1);
    if (queued.type !== 'enqueued') return;
    expect((await core.store.turns.get(queued.turn.id))?.status).toBe('queued');

    expect((await core.decide(first.approval.requestId, 'allow')).type).toBe('decided');
    const resumed = await core.nextOutcome();
    const next = await core.nextOutcome();

    expect([resumed.type, next.type]).toEqual(['completed', 'completed']);
    if (resumed.type !== 'completed' || next.type !== 'completed') return;
    expect(resumed.turn.id).toBe(first.turn.id);
    expect(next.turn.id).toBe(queued.turn.id);
    expect(next.answer).toBe('db looks fine');
    expect(restart.runs).toEqual(['web']);
    // The second turn's model call sees the first turn finished before its own question.
    const seen = model.calls[2]!.messages.filter((message) => message.role !== 'system');
    expect(seen.slice(-2)).toEqual([
      { role: 'assistant', content: 'web restarted' },
      expect.objectContaining({ role: 'user', content: expect.stringContaining('and how is db?') }),
    ]);
  });

  it('fails the turn on a model error with a consistent transcript, and the thread carries on', async () => {
    const restart = countingTool();
    const status = defineTool({
      name: 'read_status',
      description: 'Reads the status of a service.',
      parameters: z.object({ service: z.string() }),
      permission: () => ({ type: 'allow', reason: 'safe' }),
      execute: (args) => `${args.service} is up`,
    }) as Tool;
    const model = new ScriptedChatModel([
      reply.toolCalls(['read_status', { service: 'web' }]),
      new ModelUnavailableError('provider is down'),
      reply.text('web is up'),
    ]);
    const core = startCoreHarness({ model, tools: [status, restart.tool] });
    const threadTs = '1767220300.000600';

    await core.submit(threadTs, 'is web up?');
    const failed = await core.nextOutcome();
    expect(failed.type).toBe('failed');
    if (failed.type !== 'failed') return;
    expect(failed.error.code).toBe('model_unavailable');
    const row = core.db.prepare('SELECT status, error_code FROM turns WHERE id = ?').get(failed.turn.id);
    expect(row).toEqual({ status: 'failed', error_code: 'model_unavailable' });
    const afterFailure = await core.messages(threadTs);
    expect(everyCallAnswered(afterFailure)).toBe(true);
    expect(toolResults(afterFailure).get('call_1')).toBe('web is up');

    await core.submit(threadTs, 'try again', { ts: '1767220300.000700' });
    const retried = await core.nextOutcome();
    expect(retried.type).toBe('completed');
    expect(model.calls).toHaveLength(3);
    expect(everyCallAnswered(model.calls[2]!.messages)).toBe(true);
    expect((await core.messages(threadTs)).at(-1)).toEqual({ role: 'assistant', content: 'web is up' });
  });

  it.each([
    {
      name: 'arguments and hash',
      tamper: { details_json: JSON.stringify({ arguments: { service: 'db' } }), args_hash: 'db' },
    },
    { name: 'hash only', tamper: { args_hash: 'db' } },
    { name: 'arguments only', tamper: { details_json: JSON.stringify({ arguments: { service: 'db' } }) } },
  ])('does not run the tool with other arguments than approved ($name tampered)', async ({ tamper }) => {
    const { restart, model, core, suspended } = await startSuspendedRestart({
      threadTs: '1767220300.000800',
      answers: [reply.text('the restart was refused')],
    });

    const sets = Object.keys(tamper).map((column) => `${column} = @${column}`);
    const values = {
      ...tamper,
      ...('args_hash' in tamper ? { args_hash: hashArguments(JSON.stringify({ service: 'db' })) } : {}),
      requestId: suspended.approval.requestId,
    };
    const changed = core.db
      .prepare(`UPDATE approvals SET ${sets.join(', ')} WHERE request_id = @requestId`)
      .run(values);
    expect(changed.changes).toBe(1);

    await core.decide(suspended.approval.requestId, 'allow');
    expect((await core.nextOutcome()).type).toBe('completed');

    expect(restart.runs).toEqual([]);
    expect(toolResults(model.calls[1]!.messages).get('call_1')).toMatch(/arguments differ/);
  });
});
