import { describe, expect, it } from 'vitest';
import { conversationId } from '../conversation-id.js';
import {
  awaitingTurn,
  claimed,
  createApproval,
  day,
  leaseA,
  leaseB,
  type newApproval,
  newTurn,
  startTurn,
  suspendWithRequests,
  thread,
} from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

export function describeApprovalsContract(open: StoreContractFactory): void {
  async function setup() {
    const database = await open();
    const started = await startTurn(database.store);
    const { clock, store } = database;
    const create = (
      toolCallId: string,
      options: Parameters<typeof newApproval>[2] = { createdAt: clock.now() },
    ) => createApproval(store, started, toolCallId, options);
    /** Several requests of the turn, made together as one suspension makes them. */
    const createAll = (...toolCallIds: string[]) =>
      suspendWithRequests(
        store,
        started,
        toolCallIds.map((toolCallId) => ({ toolCallId, createdAt: clock.now() })),
      );
    return { ...database, ...started, create, createAll };
  }

  describe('approvals made by a suspension', () => {
    it('inserts a pending row with the exact arguments and audits the request', async () => {
      const { store, clock, create } = await setup();
      const approval = await create('call_1', {
        createdAt: clock.now(),
        arguments: { command: 'rm -rf /tmp/x', nested: { n: [1, 2] } },
        reason: 'cleanup',
      });
      expect(approval).toEqual({
        requestId: 'apr_turn-1_call_1',
        conversationId: conversationId(thread('1700.1')),
        transcriptId: conversationId(thread('1700.1')),
        toolCallId: 'call_1',
        turnId: 'turn-1',
        toolName: 'shell',
        permissionType: 'shell',
        summary: 'run `systemctl restart web`',
        arguments: { command: 'rm -rf /tmp/x', nested: { n: [1, 2] } },
        argsHash: expect.any(String),
        reason: 'cleanup',
        requestedBy: 'UREQUESTER',
        requiredApprovals: 1,
        approvedBy: [],
        createdAt: clock.now(),
        expiresAt: clock.now() + day,
        resolvedAt: null,
        decision: null,
        decidedBy: null,
        decisionReason: null,
        always: false,
        cards: [],
        edit: null,
      });
      const events = await store.audit.list({ approvalId: approval.requestId });
      expect(events.map((e) => [e.kind, e.actor, e.conversationId])).toEqual([
        ['approval.requested', 'UREQUESTER', approval.conversationId],
      ]);
    });

    it('returns the existing row for the same call untouched when a turn suspends on it again, and audits no second request', async () => {
      const { store, turn, clock, create } = await setup();
      const first = await create('call_1');
      await store.approvals.resolve({ requestId: first.requestId, decision: 'allowed', decidedBy: 'UA' });
      const resumed = claimed(await store.turns.claim('turn-1', leaseA));
      const again = await suspendWithRequests(store, { turn, fence: resumed.fence }, [
        { toolCallId: 'call_1', createdAt: clock.now(), requestId: 'apr_second', summary: 'other' },
      ]);
      expect(again).toEqual([await store.approvals.get(first.requestId)]);
      expect(again).toMatchObject([
        { requestId: 'apr_turn-1_call_1', summary: 'run `systemctl restart web`', decision: 'allowed' },
      ]);
      expect(await store.approvals.get('apr_second')).toBeUndefined();
      const requested = (await store.audit.list()).filter((e) => e.kind === 'approval.requested');
      expect(requested).toHaveLength(1);
    });

    it('finds rows by request id, by call and by turn, in the order they were created', async () => {
      const { store, createAll, conversationId: id } = await setup();
      const [first] = await createAll('call_2', 'call_1', 'call_3');
      expect((await store.approvals.get(first?.requestId ?? ''))?.toolCallId).toBe('call_2');
      expect(await store.approvals.get('apr_nope')).toBeUndefined();
      expect((await store.approvals.forCall(id, 'call_1'))?.requestId).toBe('apr_turn-1_call_1');
      expect(await store.approvals.forCall(id, 'call_9')).toBeUndefined();
      expect(await store.approvals.forCall(`${id}>call_0`, 'call_1')).toBeUndefined();
      const forTurn = await store.approvals.forTurn('turn-1');
      expect(forTurn.map((a) => a.toolCallId)).toEqual(['call_2', 'call_1', 'call_3']);
      expect(await store.approvals.forTurn('turn-other')).toEqual([]);
    });
  });

  describe('approvals.resolve with a lease', () => {
    it('claims the turn for resume with the decision that completes its approvals', async () => {
      const { store, clock } = await open();
      const { approval } = await awaitingTurn(store, clock.now());
      const result = await store.approvals.resolve(
        { requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' },
        { lease: leaseB },
      );
      expect(result).toMatchObject({
        type: 'decided',
        turnReady: true,
        claim: { type: 'claimed', mode: 'resume', fence: { turnId: 'turn-1', owner: 'proc-b', token: 2 } },
      });
      expect(await store.turns.get('turn-1')).toMatchObject({ status: 'running', leaseOwner: 'proc-b' });
    });

    it('claims the turn when the click finds the request expired', async () => {
      const { store, clock } = await open();
      const { approval } = await awaitingTurn(store, clock.now());
      clock.advance(day);
      const result = await store.approvals.resolve(
        { requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' },
        { lease: leaseB },
      );
      expect(result).toMatchObject({
        type: 'expired',
        claim: { mode: 'resume', fence: { owner: 'proc-b' } },
      });
    });

    it('claims nothing while a sibling is pending', async () => {
      const { store, createAll } = await setup();
      const [first, second] = await createAll('call_1', 'call_2');
      const decide = (requestId: string) =>
        store.approvals.resolve({ requestId, decision: 'allowed', decidedBy: 'UA' }, { lease: leaseB });
      const partial = await decide(first?.requestId ?? '');
      expect(partial).toMatchObject({ type: 'decided', turnReady: false });
      expect(partial.type === 'decided' && partial.claim).toBeFalsy();
      expect(await store.turns.get('turn-1')).toMatchObject({
        status: 'awaiting_approval',
        leaseOwner: null,
      });
      const last = await decide(second?.requestId ?? '');
      expect(last).toMatchObject({
        type: 'decided',
        turnReady: true,
        claim: { fence: { owner: leaseB.owner } },
      });
    });
  });

  describe('approvals look-ups', () => {
    it('lists pending rows by conversation and channel, and recent decisions newest first', async () => {
      const { store, clock, createAll } = await setup();
      const elsewhere = await startTurn(store, { key: thread('1800.1', 'C0OTHER'), turnId: 'turn-9' });
      await createApproval(store, elsewhere, 'call_1', { createdAt: clock.now() });
      const [first, second] = await createAll('call_1', 'call_2');
      if (!first || !second) throw new Error('the suspension stored no requests');
      expect((await store.approvals.pending()).map((a) => a.requestId)).toEqual([
        'apr_turn-9_call_1',
        first.requestId,
        second.requestId,
      ]);
      expect(await store.approvals.pending({ limit: 2 })).toHaveLength(2);
      expect((await store.approvals.pending({ channelId: 'C0OTHER' })).map((a) => a.turnId)).toEqual([
        'turn-9',
      ]);
      expect(await store.approvals.pending({ conversationId: first.conversationId, limit: 1 })).toMatchObject(
        [{ requestId: first.requestId }],
      );

      await store.approvals.resolve({ requestId: first.requestId, decision: 'allowed', decidedBy: 'UA' });
      clock.advance(10);
      await store.approvals.resolve({ requestId: second.requestId, decision: 'denied', decidedBy: 'UA' });
      expect((await store.approvals.recentlyDecided(5)).map((a) => a.requestId)).toEqual([
        second.requestId,
        first.requestId,
      ]);
      expect(await store.approvals.recentlyDecided(1)).toHaveLength(1);
      expect(await store.approvals.pending({ conversationId: first.conversationId })).toHaveLength(0);
      await store.turns.enqueue(newTurn(thread('1900.1'), 'turn-idle'));
      expect(await store.approvals.pending({ conversationId: conversationId(thread('1900.1')) })).toEqual([]);
    });
  });
}
