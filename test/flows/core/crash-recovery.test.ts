import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { interruptedResult } from '../../../src/agent/tool-runtime.js';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { approver, countingTool, never, startCoreHarness, threadId, toolResults } from './core-harness.js';

/** Past the runner's default lease, so the dead process's claim on a running turn has run out. */
const afterLease = 5 * 60_000 + 1;

/** A tool that starts, records the start, and never returns: the process dies while it runs. */
function hangingTool(options: { name: string; idempotent: boolean; ask: boolean }) {
  const starts: string[] = [];
  let started: () => void = () => {};
  const firstStart = new Promise<void>((resolve) => {
    started = resolve;
  });
  const tool = defineTool({
    name: options.name,
    description: 'Changes a service.',
    parameters: z.object({ service: z.string() }),
    idempotent: options.idempotent,
    permission: (args) =>
      options.ask
        ? { type: 'ask', permissionType: 'restart', summary: `restart ${args.service}` }
        : { type: 'allow', reason: 'safe' },
    execute: (args) => {
      starts.push(args.service);
      started();
      return never<string>();
    },
  }) as Tool;
  return { tool, starts, firstStart };
}

/** The same tool in the next process: it finishes. */
function finishingTool(name: string, idempotent: boolean, ask: boolean) {
  const runs: string[] = [];
  const tool = defineTool({
    name,
    description: 'Changes a service.',
    parameters: z.object({ service: z.string() }),
    idempotent,
    permission: (args) =>
      ask
        ? { type: 'ask', permissionType: 'restart', summary: `restart ${args.service}` }
        : { type: 'allow', reason: 'safe' },
    execute: (args) => {
      runs.push(args.service);
      return `restarted ${args.service}`;
    },
  }) as Tool;
  return { tool, runs };
}

describe('crash recovery', () => {
  it('re-runs a turn left running by a process that died during the model call', async () => {
    const status = countingTool('read_status');
    const firstModel = new ScriptedChatModel([() => never()]);
    const core = startCoreHarness({ model: firstModel, tools: [status.tool] });
    const threadTs = '1767220400.000100';

    const submitted = await core.submit(threadTs, 'is web up?');
    if (submitted.type !== 'enqueued') throw new Error(`expected a new turn, got ${submitted.type}`);
    await expect.poll(() => firstModel.calls.length).toBe(1);

    const nextModel = new ScriptedChatModel([reply.text('web is up')]);
    core.crash({ model: nextModel });
    core.clock.advance(afterLease);
    const report = await core.runtime.recover();
    expect(report.rerun).toBe(1);
    const outcome = await core.nextOutcome();

    expect(outcome.type).toBe('completed');
    const row = core.db.prepare('SELECT status, attempts FROM turns WHERE id = ?').get(submitted.turn.id) as {
      status: string;
      attempts: number;
    };
    expect(row).toEqual({ status: 'completed', attempts: 2 });
    // The user message was written once, by the first claim; the re-run did not add it again.
    const messages = await core.messages(threadTs);
    expect(messages.filter((message) => message.role === 'user')).toHaveLength(1);
    expect(messages.at(-1)).toEqual({ role: 'assistant', content: 'web is up' });
    expect(nextModel.calls).toHaveLength(1);
  });

  it('never runs an approved, non-idempotent tool again once it started before a crash', async () => {
    const hanging = hangingTool({ name: 'restart_service', idempotent: false, ask: true });
    const model = new ScriptedChatModel([reply.toolCalls(['restart_service', { service: 'web' }])]);
    const core = startCoreHarness({ model, tools: [hanging.tool] });
    const threadTs = '1767220400.000200';

    await core.submit(threadTs, 'restart web');
    const suspended = await core.nextOutcome();
    if (suspended.type !== 'awaiting-approval')
      throw new Error(`expected a suspension, got ${suspended.type}`);
    expect((await core.decide(suspended.approval.requestId, 'allow')).type).toBe('decided');
    await hanging.firstStart;

    const next = finishingTool('restart_service', false, true);
    const nextModel = new ScriptedChatModel([reply.text('the restart may or may not have happened')]);
    core.crash({ model: nextModel, tools: [next.tool] });
    core.clock.advance(afterLease);
    expect((await core.runtime.recover()).rerun).toBe(1);
    const outcome = await core.nextOutcome();

    expect(outcome.type).toBe('completed');
    expect(hanging.starts).toEqual(['web']);
    expect(next.runs).toEqual([]);
    expect(toolResults(await core.messages(threadTs)).get('call_1')).toBe(interruptedResult);
    expect(nextModel.calls).toHaveLength(1);
    expect(toolResults(nextModel.calls[0]!.messages).get('call_1')).toMatch(/^interrupted: outcome unknown/);
    const audit = core.db
      .prepare("SELECT count(*) AS n FROM audit_events WHERE kind = 'tool.interrupted'")
      .get() as { n: number };
    expect(audit.n).toBe(1);
    // The approval that let it start was not asked again.
    const approvals = core.db.prepare('SELECT decision, decided_by FROM approvals').all();
    expect(approvals).toEqual([{ decision: 'allowed', decided_by: approver }]);
  });

  it('runs an idempotent tool again when it started before a crash', async () => {
    const hanging = hangingTool({ name: 'read_status', idempotent: true, ask: false });
    const model = new ScriptedChatModel([reply.toolCalls(['read_status', { service: 'web' }])]);
    const core = startCoreHarness({ model, tools: [hanging.tool] });
    const threadTs = '1767220400.000300';

    await core.submit(threadTs, 'is web up?');
    await hanging.firstStart;

    const next = finishingTool('read_status', true, false);
    const nextModel = new ScriptedChatModel([reply.text('web is up')]);
    core.crash({ model: nextModel, tools: [next.tool] });
    core.clock.advance(afterLease);
    await core.runtime.recover();

    expect((await core.nextOutcome()).type).toBe('completed');
    expect(next.runs).toEqual(['web']);
    expect(toolResults(await core.messages(threadTs)).get('call_1')).toBe('restarted web');
    expect(nextModel.calls).toHaveLength(1);
  });

  it('resumes on recover() a turn whose decision was committed by a process that died before resuming', async () => {
    const restart = countingTool();
    const model = new ScriptedChatModel([reply.toolCalls(['restart_service', { service: 'web' }])]);
    const core = startCoreHarness({ model, tools: [restart.tool] });
    const threadTs = '1767220400.000400';

    await core.submit(threadTs, 'restart web');
    const suspended = await core.nextOutcome();
    if (suspended.type !== 'awaiting-approval')
      throw new Error(`expected a suspension, got ${suspended.type}`);
    // The click's commit without a lease: decided, but nobody claimed the turn to resume it.
    const resolved = await core.store.approvals.resolve({
      requestId: suspended.approval.requestId,
      decision: 'allowed',
      decidedBy: approver,
      always: false,
    });
    expect(resolved.type).toBe('decided');

    const nextModel = new ScriptedChatModel([reply.text('web restarted')]);
    core.crash({ model: nextModel });
    expect((await core.store.turns.get(suspended.turn.id))?.status).toBe('awaiting_approval');
    expect((await core.runtime.recover()).resumed).toBe(1);
    const outcome = await core.nextOutcome();

    expect(outcome.type).toBe('completed');
    expect(restart.runs).toEqual(['web']);
    expect(nextModel.calls).toHaveLength(1);
    expect(toolResults(nextModel.calls[0]!.messages).get('call_1')).toBe('restarted web');
    expect((await core.messages(threadTs)).at(-1)).toEqual({ role: 'assistant', content: 'web restarted' });
    expect((await core.store.turns.get(suspended.turn.id))?.status).toBe('completed');
    expect(
      (await core.store.approvals.pending({ conversationId: threadId(threadTs) })).map((row) => row.decision),
    ).toEqual([]);
  });

  it('runs the approved call once when the process died after the click claimed its turn, before the call started', async () => {
    const restart = countingTool();
    // The resumed run stops before the call: the process dies with the click's commit already written.
    const model = new ScriptedChatModel([reply.toolCalls(['restart_service', { service: 'web' }])]);
    const core = startCoreHarness({ model, tools: [restart.tool] });
    const threadTs = '1767220400.000500';
    await core.submit(threadTs, 'restart web');
    const suspended = await core.nextOutcome();
    if (suspended.type !== 'awaiting-approval')
      throw new Error(`expected a suspension, got ${suspended.type}`);

    // The click's own commit claims the turn for this process; the call has no ledger entry yet, because
    // only the process that runs it writes one, as it starts.
    const resolved = await core.store.approvals.resolve(
      { requestId: suspended.approval.requestId, decision: 'allowed', decidedBy: approver },
      { lease: { owner: 'a-process-about-to-die', durationMs: 15_000 } },
    );
    expect(resolved).toMatchObject({ type: 'decided', claim: { mode: 'resume' } });
    const ledger = () => core.db.prepare('SELECT tool_call_id, status FROM tool_executions').all();
    expect(ledger()).toEqual([]);

    const nextModel = new ScriptedChatModel([reply.text('web restarted')]);
    core.crash({ model: nextModel });
    core.clock.advance(15_001);
    expect((await core.runtime.recover()).rerun).toBe(1);
    expect(await core.nextOutcome()).toMatchObject({ type: 'completed' });

    // It never started, so the next process runs it, once, and its ledger entry exists.
    expect(restart.runs).toEqual(['web']);
    expect(toolResults(nextModel.calls[0]!.messages).get('call_1')).toBe('restarted web');
    expect(ledger()).toEqual([{ tool_call_id: 'call_1', status: 'finished' }]);
  });
});
