import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import {
  countingTool,
  type SqliteCoreHarness,
  startCoreHarness,
  threadId,
  toolResults,
} from './core-harness.js';
import { startSuspendedRestart } from './start-suspended-restart.js';

describe('decisions', () => {
  it('tells the model who denied the call, never runs the tool, and lets the model answer', async () => {
    const threadTs = '1767220200.000100';
    const { restart, model, core, suspended } = await startSuspendedRestart({
      threadTs,
      answers: [reply.text('I was not allowed to restart web')],
    });
    expect((await core.decide(suspended.approval.requestId, 'deny')).type).toBe('decided');
    const done = await core.nextOutcome();

    expect(done.type).toBe('completed');
    expect(restart.runs).toEqual([]);
    expect(model.calls).toHaveLength(2);
    const result = toolResults(model.calls[1]!.messages).get('call_1');
    // By name: the model passes the sentence on to people, who do not read ids.
    expect(result).toMatch(/^Not run: denied by Ada\.\n/);
    expect(result).not.toContain('UAPPROVER');
    expect((await core.messages(threadTs)).at(-1)).toEqual({
      role: 'assistant',
      content: 'I was not allowed to restart web',
    });
    const approval = await core.store.approvals.get(suspended.approval.requestId);
    expect([approval?.decision, approval?.decidedBy]).toEqual(['denied', 'UAPPROVER']);
    const ledger = core.db.prepare('SELECT count(*) AS n FROM tool_executions').get() as { n: number };
    expect(ledger.n).toBe(0);
  });

  it('runs the approved call only once its decision and its started marker are on the file', async () => {
    const threadTs = '1767220200.000300';
    // What a process opened after a power cut at the moment the call runs would find.
    const onFile: unknown[] = [];
    let core: SqliteCoreHarness | undefined;
    const restart = defineTool({
      name: 'restart_service',
      description: 'Restarts a service.',
      parameters: z.object({ service: z.string() }),
      permission: (args) => ({ type: 'ask', permissionType: 'restart', summary: `restart ${args.service}` }),
      execute: async (args) => {
        onFile.push(
          await core?.rows('SELECT decision FROM approvals'),
          await core?.rows('SELECT status FROM tool_executions'),
        );
        return `restarted ${args.service}`;
      },
    });
    const model = new ScriptedChatModel([
      reply.toolCalls(['restart_service', { service: 'web' }]),
      reply.text('Restarted web.'),
    ]);
    core = startCoreHarness({ model, tools: [restart as Tool] });
    await core.submit(threadTs, 'restart web');
    const suspended = await core.nextOutcome();
    if (suspended.type !== 'awaiting-approval')
      throw new Error(`expected a suspension, got ${suspended.type}`);

    expect((await core.decide(suspended.approval.requestId, 'allow')).type).toBe('decided');
    expect((await core.nextOutcome()).type).toBe('completed');
    expect(onFile).toEqual([[{ decision: 'allowed' }], [{ status: 'started' }]]);
  });

  it('keeps approvals of two conversations apart when both models reuse the id call_1', async () => {
    const restart = countingTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['restart_service', { service: 'web' }, 'call_1']),
      reply.toolCalls(['restart_service', { service: 'db' }, 'call_1']),
      reply.text('web restarted'),
    ]);
    const core = startCoreHarness({ model, tools: [restart.tool] });
    const webThread = '1767220200.000200';
    const dbThread = '1767220200.000300';

    await core.submit(webThread, 'restart web');
    const web = await core.nextOutcome();
    await core.submit(dbThread, 'restart db');
    const db = await core.nextOutcome();
    if (web.type !== 'awaiting-approval' || db.type !== 'awaiting-approval') {
      throw new Error(`expected two suspensions, got ${web.type} and ${db.type}`);
    }

    const rows = core.db
      .prepare('SELECT request_id, conversation_id, tool_call_id FROM approvals ORDER BY created_at, rowid')
      .all() as Array<{ request_id: string; conversation_id: string; tool_call_id: string }>;
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.request_id)).size).toBe(2);
    expect(rows.map((row) => [row.conversation_id, row.tool_call_id])).toEqual([
      [threadId(webThread), 'call_1'],
      [threadId(dbThread), 'call_1'],
    ]);

    expect((await core.decide(web.approval.requestId, 'allow')).type).toBe('decided');
    expect((await core.nextOutcome()).type).toBe('completed');
    await core.runtime.idle();

    expect(restart.runs).toEqual(['web']);
    const dbApproval = await core.store.approvals.get(db.approval.requestId);
    expect(dbApproval?.decision).toBeNull();
    expect((await core.store.turns.get(db.turn.id))?.status).toBe('awaiting_approval');
    expect(toolResults(await core.messages(dbThread)).has('call_1')).toBe(false);
    expect(toolResults(await core.messages(webThread)).get('call_1')).toBe('restarted web');
  });

  it('expires an undecided approval in the sweep, tells the model it timed out and refuses a late click', async () => {
    const { restart, model, core, suspended } = await startSuspendedRestart({
      threadTs: '1767220200.000400',
      answers: [reply.text('nobody approved the restart in time')],
      approvalExpiryMs: 60_000,
    });
    expect(suspended.approval.expiresAt).toBe(core.clock.now() + 60_000);

    core.clock.advance(60_001);
    const report = await core.runtime.recover();
    expect(report.expired).toBe(1);
    const done = await core.nextOutcome();
    expect(done.type).toBe('completed');

    const approval = await core.store.approvals.get(suspended.approval.requestId);
    expect(approval?.decision).toBe('expired');
    expect(toolResults(model.calls[1]!.messages).get('call_1')).toContain('timed out');
    expect(restart.runs).toEqual([]);

    const late = await core.decide(suspended.approval.requestId, 'allow');
    expect(late.type).toBe('already-decided');
    if (late.type === 'already-decided') expect(late.approval.decision).toBe('expired');
    await core.runtime.idle();
    expect(restart.runs).toEqual([]);
    expect(model.calls).toHaveLength(2);
  });

  it('answers a click after the deadline with expired, even before any sweep ran', async () => {
    const { restart, model, core, suspended } = await startSuspendedRestart({
      threadTs: '1767220200.000500',
      answers: [reply.text('the request timed out')],
      approvalExpiryMs: 60_000,
    });

    core.clock.advance(60_000);
    const late = await core.decide(suspended.approval.requestId, 'allow');
    expect(late.type).toBe('expired');
    expect((await core.nextOutcome()).type).toBe('completed');

    expect(restart.runs).toEqual([]);
    expect((await core.store.approvals.get(suspended.approval.requestId))?.decision).toBe('expired');
    expect(toolResults(model.calls[1]!.messages).get('call_1')).toContain('timed out');
  });

  it('answers malformed calls with a tool result that explains the problem and lets the model go on', async () => {
    const restart = countingTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(
        ['restart_service', '{"service": "web"', 'call_json'],
        ['restart_service', { service: 42 }, 'call_schema'],
        ['launch_rocket', { target: 'moon' }, 'call_unknown'],
      ),
      reply.text('those calls were malformed'),
    ]);
    const core = startCoreHarness({ model, tools: [restart.tool] });
    const threadTs = '1767220200.000600';

    await core.submit(threadTs, 'do things');
    const done = await core.nextOutcome();

    expect(done.type).toBe('completed');
    expect(model.calls).toHaveLength(2);
    const results = toolResults(model.calls[1]!.messages);
    expect(results.get('call_json')).toMatch(/not valid JSON/);
    expect(results.get('call_schema')).toMatch(/invalid arguments for restart_service/);
    expect(results.get('call_schema')).toContain('service');
    expect(results.get('call_unknown')).toMatch(/no tool named "launch_rocket"/);
    expect(results.get('call_unknown')).toContain('restart_service');
    expect(restart.runs).toEqual([]);
    const approvals = core.db.prepare('SELECT count(*) AS n FROM approvals').get() as { n: number };
    expect(approvals.n).toBe(0);
    const turns = core.db.prepare('SELECT status FROM turns').all();
    expect(turns).toEqual([{ status: 'completed' }]);
  });
});
