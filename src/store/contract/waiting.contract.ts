import { describe, expect, it } from 'vitest';
import { awaitingTurn, newTurn, noticeEntry, thread } from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

export function describeWaitingContract(open: StoreContractFactory): void {
  describe('waiting', () => {
    it('counts undecided requests, unsent outbox rows and queued turns, and nothing finished', async () => {
      const { store, clock } = await open();
      expect(await store.waiting()).toEqual({ pendingApprovals: 0, pendingDeliveries: 0, queuedTurns: 0 });

      const parked = await awaitingTurn(store, clock.now());
      await awaitingTurn(store, clock.now(), { key: thread('1700.2'), turnId: 'turn-2' });
      await store.turns.enqueue(newTurn(thread('1700.3'), 'turn-3'));
      await store.outbox.enqueue([
        noticeEntry('n1', parked.conversationId),
        noticeEntry('n2', parked.conversationId),
      ]);
      await store.approvals.resolve({
        requestId: parked.approval.requestId,
        decision: 'denied',
        decidedBy: 'UA',
      });

      const waiting = await store.waiting();
      expect(waiting.pendingApprovals).toBe(1);
      expect(waiting.queuedTurns).toBe(1);
      // The two notices, and the card's rewrite the decision wrote.
      expect(waiting.pendingDeliveries).toBe(3);
    });
  });
}
