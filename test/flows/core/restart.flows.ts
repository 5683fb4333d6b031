import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { finalAnswerOf } from '../../support/store-reads.js';
import { type CoreEngine, countingTool, startCoreHarnessOn, threadId, toolResults } from './core-harness.js';

/** Run on SQLite by restart.test.ts and on PostgreSQL by restart.postgres.test.ts. */
export function describeRestartFlows(engine: () => CoreEngine | Promise<CoreEngine>): void {
  describe('approval across a restart', () => {
    it('resumes in a fresh process from the file, runs the tool once and asks the new model once', async () => {
      const restart = countingTool();
      const firstModel = new ScriptedChatModel([reply.toolCalls(['restart_service', { service: 'web' }])]);
      const core = await startCoreHarnessOn(await engine(), { model: firstModel, tools: [restart.tool] });
      const threadTs = '1767220100.000100';

      await core.submit(threadTs, 'restart web');
      const suspended = await core.nextOutcome();
      expect(suspended.type).toBe('awaiting-approval');
      if (suspended.type !== 'awaiting-approval') return;
      const requestId = suspended.approval.requestId;

      // Nothing of the first process survives but the file.
      const secondModel = new ScriptedChatModel([reply.text('web is restarted')]);
      await core.reopen({ model: secondModel });

      const decision = await core.decide(requestId, 'allow');
      expect(decision.type).toBe('decided');
      const resumed = await core.nextOutcome();
      expect(resumed.type).toBe('completed');
      await core.runtime.idle();

      expect(restart.runs).toEqual(['web']);
      expect(firstModel.calls).toHaveLength(1);
      expect(secondModel.calls).toHaveLength(1);
      // The new model sees the approved result, not a fresh question.
      expect(toolResults(secondModel.calls[0]!.messages).get('call_1')).toBe('restarted web');
      const messages = await core.messages(threadTs);
      expect(messages.at(-1)).toEqual({ role: 'assistant', content: 'web is restarted' });
      const turn = await core.store.turns.get(suspended.turn.id);
      expect(turn?.status).toBe('completed');
      expect(await finalAnswerOf(core.store, suspended.turn.id)).toBe('web is restarted');
      const approval = await core.store.approvals.get(requestId);
      expect(approval?.decision).toBe('allowed');
      expect(approval?.decidedBy).toBe('UAPPROVER');
    });

    it('keeps an always-allow grant across a restart: the same call later runs without a new approval', async () => {
      const restart = countingTool();
      const firstModel = new ScriptedChatModel([
        reply.toolCalls(['restart_service', { service: 'web' }, 'call_1']),
        reply.text('restarted once'),
      ]);
      const core = await startCoreHarnessOn(await engine(), { model: firstModel, tools: [restart.tool] });
      const threadTs = '1767220100.000200';

      await core.submit(threadTs, 'restart web');
      const suspended = await core.nextOutcome();
      if (suspended.type !== 'awaiting-approval')
        throw new Error(`expected a suspension, got ${suspended.type}`);
      expect((await core.decide(suspended.approval.requestId, 'always')).type).toBe('decided');
      expect((await core.nextOutcome()).type).toBe('completed');
      expect(restart.runs).toEqual(['web']);

      const secondModel = new ScriptedChatModel([
        reply.toolCalls(['restart_service', { service: 'web' }, 'call_2']),
        reply.text('restarted again'),
      ]);
      await core.reopen({ model: secondModel });

      await core.submit(threadTs, 'restart web again', { ts: '1767220100.000300' });
      const second = await core.nextOutcome();
      expect(second.type).toBe('completed');

      expect(restart.runs).toEqual(['web', 'web']);
      expect(secondModel.calls).toHaveLength(2);
      const rows = await core.rows('SELECT tool_call_id, decision, always_allow FROM approvals');
      expect(rows).toEqual([{ tool_call_id: 'call_1', decision: 'allowed', always_allow: 1 }]);
      const grants = await core.store.grants.list({ conversationId: threadId(threadTs) });
      expect(grants.map((grant) => [grant.toolName, grant.createdBy])).toEqual([
        ['restart_service', 'UAPPROVER'],
      ]);
      expect(toolResults(await core.messages(threadTs)).get('call_2')).toBe('restarted web');
    });
  });
}
