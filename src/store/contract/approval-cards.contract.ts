import { describe, expect, it } from 'vitest';
import { awaitingTurn, day, startTurn, suspendWithRequests, thread } from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

export function describeApprovalCardsContract(open: StoreContractFactory): void {
  describe('approval cards', () => {
    it('records the clicked card with the decision, and again on a request already decided', async () => {
      const { store, clock } = await open();
      const { approval } = await awaitingTurn(store, clock.now());
      const first = { channel: 'C0OPS', ts: '1700.5' };
      const second = { channel: 'C0OPS', ts: '1700.6' };
      await store.approvals.resolve(
        { requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' },
        { card: first },
      );
      clock.advance(1);
      const late = await store.approvals.resolve(
        { requestId: approval.requestId, decision: 'denied', decidedBy: 'UB' },
        { card: second },
      );
      expect(late).toMatchObject({
        type: 'already-decided',
        approval: { decision: 'allowed', cards: [first, second] },
      });
      // The same card clicked twice is still one card.
      await store.approvals.resolve(
        { requestId: approval.requestId, decision: 'denied', decidedBy: 'UB' },
        { card: first },
      );
      expect((await store.approvals.get(approval.requestId))?.cards).toEqual([first, second]);
    });

    it('records nothing for a card of a request it never issued', async () => {
      const { store, inspect } = await open();
      const result = await store.approvals.resolve(
        { requestId: 'apr_forged', decision: 'allowed', decidedBy: 'U1' },
        { card: { channel: 'C0OPS', ts: '1700.5' } },
      );
      expect(result).toEqual({ type: 'unknown' });
      expect(await inspect.outbox()).toEqual([]);
      expect(await store.audit.list()).toEqual([]);
    });

    it('writes one card rewrite per state a request reaches: each vote, the decision, expiry', async () => {
      const { store, clock, inspect } = await open();
      const quorum = await awaitingTurn(store, clock.now(), { requiredApprovals: 3 });
      const expiring = await awaitingTurn(store, clock.now(), { key: thread('1700.2'), turnId: 'turn-2' });
      const vote = (decidedBy: string) =>
        store.approvals.resolve({ requestId: quorum.approval.requestId, decision: 'allowed', decidedBy });
      await vote('UA');
      await vote('UA'); // already voted: nothing to show
      await vote('UB');
      await vote('UC');
      await vote('UD'); // already decided: nothing to show
      clock.advance(day);
      await store.approvals.expireOverdue();

      const rows = await inspect.outbox();
      const updates = rows.filter((row) => row.message.type === 'card-update');
      expect(updates).toHaveLength(4);
      expect(new Set(updates.map((row) => row.key)).size).toBe(4);
      expect(updates).toEqual(
        [quorum, quorum, quorum, expiring].map((turn) =>
          expect.objectContaining({
            conversationId: turn.conversationId,
            turnId: turn.turn.turnId,
            requestId: turn.approval.requestId,
            message: { type: 'card-update', requestId: turn.approval.requestId },
            status: 'pending',
            claim: null,
          }),
        ),
      );
    });

    it('writes a denial and a click-time expiry as one rewrite each, unclaimed until a worker claims it', async () => {
      const { store, clock, inspect } = await open();
      const denied = await awaitingTurn(store, clock.now());
      const expired = await awaitingTurn(store, clock.now(), { key: thread('1700.2'), turnId: 'turn-2' });
      await store.approvals.resolve({
        requestId: denied.approval.requestId,
        decision: 'denied',
        decidedBy: 'UA',
      });
      clock.advance(day);
      await store.approvals.resolve({
        requestId: expired.approval.requestId,
        decision: 'allowed',
        decidedBy: 'UA',
      });
      const claim = null;
      expect(await inspect.outbox()).toMatchObject([
        { requestId: denied.approval.requestId, message: { type: 'card-update' }, claim },
        { requestId: expired.approval.requestId, message: { type: 'card-update' }, claim },
      ]);
    });
  });

  describe('approvals.expireOverdue', () => {
    it('expires only overdue pending rows, each audited, with a card rewrite', async () => {
      const { store, clock, inspect } = await open();
      const started = await startTurn(store);
      const [soon, later] = await suspendWithRequests(store, started, [
        { toolCallId: 'call_1', createdAt: clock.now(), expiresAt: clock.now() + 1_000 },
        { toolCallId: 'call_2', createdAt: clock.now(), expiresAt: clock.now() + 10_000 },
      ]);
      if (!soon || !later) throw new Error('the suspension stored no requests');
      clock.advance(1_000);
      const expired = await store.approvals.expireOverdue();
      expect(expired).toMatchObject([
        { requestId: soon.requestId, decision: 'expired', decidedBy: null, resolvedAt: clock.now() },
      ]);
      expect((await store.approvals.get(later.requestId))?.decision).toBeNull();
      expect((await store.audit.list({ approvalId: soon.requestId })).map((e) => [e.kind, e.actor])).toEqual([
        ['approval.requested', 'UREQUESTER'],
        ['approval.expired', 'holdfast'],
      ]);
      expect((await inspect.outbox()).map((row) => row.requestId)).toEqual([soon.requestId]);
      expect(await store.approvals.expireOverdue()).toEqual([]);
    });

    it('leaves decided rows alone however old they are', async () => {
      const { store, clock } = await open();
      const { approval } = await awaitingTurn(store, clock.now());
      await store.approvals.resolve({ requestId: approval.requestId, decision: 'denied', decidedBy: 'UA' });
      clock.advance(2 * day);
      expect(await store.approvals.expireOverdue()).toEqual([]);
      expect((await store.approvals.get(approval.requestId))?.decision).toBe('denied');
    });

    it('expires at most `limit` rows per call, the longest overdue first', async () => {
      const { store, clock, inspect } = await open();
      const started = await startTurn(store);
      const deadlines = [3_000, 1_000, 2_000, 4_000, 5_000];
      await suspendWithRequests(
        store,
        started,
        deadlines.map((after, index) => ({
          toolCallId: `call_${index}`,
          createdAt: clock.now(),
          expiresAt: clock.now() + after,
        })),
      );
      clock.advance(4_000);
      const batch = await store.approvals.expireOverdue(2);
      expect(batch.map((a) => a.toolCallId)).toEqual(['call_1', 'call_2']);
      expect((await store.approvals.pending()).map((a) => a.toolCallId)).toEqual([
        'call_0',
        'call_3',
        'call_4',
      ]);
      expect((await store.approvals.expireOverdue(2)).map((a) => a.toolCallId)).toEqual(['call_0', 'call_3']);
      expect(await store.approvals.expireOverdue(2)).toEqual([]);
      expect(await inspect.outbox()).toHaveLength(4);
    });
  });
}
