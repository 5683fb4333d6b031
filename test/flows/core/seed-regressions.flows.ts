import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import {
  type CoreEngine,
  type CoreHarness,
  countingTool,
  safeTool,
  startCoreHarnessOn,
  threadId,
  toolResults,
} from './core-harness.js';

/** Run on SQLite by seed-regressions.test.ts and on PostgreSQL by seed-regressions.postgres.test.ts. */
export function describeSeedRegressions(engine: () => CoreEngine | Promise<CoreEngine>): void {
  describe('seed regressions', () => {
    it('suspends on ApprovalPending instead of turning it into a tool error', async () => {
      const restart = countingTool();
      const model = new ScriptedChatModel([reply.toolCalls(['restart_service', { service: 'web' }])]);
      const core = await startCoreHarnessOn(await engine(), { model, tools: [restart.tool] });

      await core.submit('1767220000.000100', 'restart web');
      const outcome = await core.nextOutcome();

      expect(outcome.type).toBe('awaiting-approval');
      const pending = await core.store.approvals.pending({ conversationId: threadId('1767220000.000100') });
      expect(pending.map((row) => [row.toolCallId, row.decision])).toEqual([['call_1', null]]);
      expect(toolResults(await core.messages('1767220000.000100')).has('call_1')).toBe(false);
      expect(restart.runs).toEqual([]);
      expect(model.calls).toHaveLength(1);
    });

    it('leaves no synthetic canceled or error result for the waiting call once the loop unwinds', async () => {
      const restart = countingTool();
      const model = new ScriptedChatModel([reply.toolCalls(['restart_service', { service: 'web' }])]);
      const core = await startCoreHarnessOn(await engine(), { model, tools: [restart.tool] });

      await core.submit('1767220000.000200', 'restart web');
      expect((await core.nextOutcome()).type).toBe('awaiting-approval');
      await core.runtime.idle();

      const toolRows = await core.rows<{ tool_call_id: string; content: string }>(
        "SELECT tool_call_id, content FROM messages WHERE role = 'tool'",
      );
      expect(toolRows).toEqual([]);
      const [turn] = await core.rows<{ status: string; error_code: string | null }>(
        'SELECT status, error_code FROM turns',
      );
      expect(turn).toEqual({ status: 'awaiting_approval', error_code: null });
      const [ledger] = await core.rows<{ n: number }>('SELECT count(*) AS n FROM tool_executions');
      expect(ledger?.n).toBe(0);
    });

    it('keeps the sibling result of a parallel batch and does not run the sibling again on resume', async () => {
      const status = safeTool();
      const restart = countingTool();
      const model = new ScriptedChatModel([
        reply.toolCalls(
          ['read_status', { service: 'web' }, 'call_a'],
          ['restart_service', { service: 'web' }, 'call_b'],
        ),
        reply.text('web restarted, it was up before'),
      ]);
      const core = await startCoreHarnessOn(await engine(), { model, tools: [status.tool, restart.tool] });
      const threadTs = '1767220000.000300';

      await core.submit(threadTs, 'check and restart web');
      const suspended = await core.nextOutcome();
      expect(suspended.type).toBe('awaiting-approval');
      if (suspended.type !== 'awaiting-approval') return;

      // The sibling's result is on disk before the turn parks.
      const beforeResume = toolResults(await core.messages(threadTs));
      expect(beforeResume.get('call_a')).toBe('web is up');
      expect(beforeResume.has('call_b')).toBe(false);
      expect(status.runs).toEqual(['web']);

      const decision = await core.decide(suspended.approval.requestId, 'allow');
      expect(decision.type).toBe('decided');
      const resumed = await core.nextOutcome();
      expect(resumed.type).toBe('completed');

      expect(status.runs).toEqual(['web']);
      expect(restart.runs).toEqual(['web']);
      expect(model.calls).toHaveLength(2);
      const secondCall = model.calls[1]!.messages;
      const seen = toolResults(secondCall);
      expect(seen.get('call_a')).toBe('web is up');
      expect(seen.get('call_b')).toBe('restarted web');
      expect(secondCall.filter((message) => message.role === 'tool')).toHaveLength(2);
      expect((await core.messages(threadTs)).at(-1)).toEqual({
        role: 'assistant',
        content: 'web restarted, it was up before',
      });
    });

    it('commits the assistant message with its calls before the first of them runs', async () => {
      type Row = { role: string; tool_calls_json: string | null };
      const snapshots: Row[][] = [];
      let core: CoreHarness | undefined;
      const probe = defineTool({
        name: 'read_status',
        description: 'Reads the status of a service.',
        parameters: z.object({ service: z.string() }),
        permission: () => ({ type: 'allow', reason: 'safe' }),
        execute: async (args) => {
          // A second connection sees only what is committed, as a process after a crash would.
          snapshots.push(await core!.rows<Row>('SELECT role, tool_calls_json FROM messages ORDER BY seq'));
          return `${args.service} is up`;
        },
      }) as Tool;
      const model = new ScriptedChatModel([
        reply.toolCalls(
          ['read_status', { service: 'web' }, 'call_a'],
          ['read_status', { service: 'db' }, 'call_b'],
        ),
        reply.text('both up'),
      ]);
      core = await startCoreHarnessOn(await engine(), { model, tools: [probe] });

      await core.submit('1767220000.000400', 'are web and db up?');
      expect((await core.nextOutcome()).type).toBe('completed');

      // Each run saw the assistant message with both calls; the second also saw the first's result.
      expect(snapshots.map((rows) => rows.map((row) => row.role))).toEqual([
        ['user', 'assistant'],
        ['user', 'assistant', 'tool'],
      ]);
      const calls = JSON.parse(snapshots[0]![1]!.tool_calls_json ?? '[]') as Array<{ id: string }>;
      expect(calls.map((call) => call.id)).toEqual(['call_a', 'call_b']);
    });
  });
}
