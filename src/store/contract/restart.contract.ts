import { describe, expect, it } from 'vitest';
import { awaitingTurn, observe, startTurn, thread } from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

export function describeRestartContract(open: StoreContractFactory): void {
  describe('a restart', () => {
    it('finds everything the previous process wrote: turns, transcript, approvals, kv, grants, outbox', async () => {
      const database = await open();
      const { store, clock, inspect } = database;
      const waiting = await awaitingTurn(store, clock.now());
      await store.approvals.resolve(
        { requestId: waiting.approval.requestId, decision: 'allowed', decidedBy: 'UA', always: true },
        { card: { channel: 'C0OPS', ts: '1700.5' } },
      );
      const running = await startTurn(store, { key: thread('1700.2'), turnId: 'turn-2' });
      await store.transcript.startTool(running.fence, {
        conversationId: running.conversationId,
        transcriptId: running.conversationId,
        turnId: 'turn-2',
        toolCallId: 'call_1',
        toolName: 'shell',
        argsHash: 'h',
      });
      const before = [await observe(store, inspect, waiting), await observe(store, inspect, running)];
      const grants = await store.grants.list({ conversationId: waiting.conversationId });

      const restarted = await database.restart();
      expect([
        await observe(restarted, inspect, waiting),
        await observe(restarted, inspect, running),
      ]).toEqual(before);
      expect(await restarted.grants.list({ conversationId: waiting.conversationId })).toEqual(grants);
      expect(await restarted.turns.recoverable()).toMatchObject({
        running: [{ id: 'turn-2', leaseOwner: 'proc-a' }],
        decidedAwaiting: [{ id: 'turn-1' }],
      });
      // A fence lives in the database, not in a connection: it holds across a reopen until another claim.
      expect(await restarted.turns.renewLease(running.fence, 1_000)).toBe(true);
    });
  });
}
