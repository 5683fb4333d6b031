import { describe, expect, it } from 'vitest';
import type { DecisionInput, ResolveOptions, ResolveResult } from '../store.js';
import {
  createApproval,
  day,
  type newApproval,
  requestAfterResume,
  startTurn,
  suspendWithRequests,
} from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

export function describeApprovalDecisionsContract(open: StoreContractFactory): void {
  async function setup() {
    const database = await open();
    const started = await startTurn(database.store);
    const { clock, store } = database;
    const create = (
      toolCallId: string,
      options: Parameters<typeof newApproval>[2] = { createdAt: clock.now() },
    ) => createApproval(store, started, toolCallId, options);
    /** A request of the turn once it resumed from its earlier ones, all decided. */
    const createAfterResume = (
      toolCallId: string,
      options: Parameters<typeof newApproval>[2] = { createdAt: clock.now() },
    ) => requestAfterResume(store, started, toolCallId, options);
    return { ...database, ...started, create, createAfterResume };
  }

  describe('approvals.rebind', () => {
    it("binds a pending request to its tool's new definition once: votes dropped, a note, a new card, the old rewritten", async () => {
      const { store, clock, create, inspect } = await setup();
      const approval = await create('call_1', { createdAt: clock.now(), requiredApprovals: 2 });
      await store.approvals.resolve({ requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' });
      const rebind = {
        requestId: approval.requestId,
        fromArgsHash: approval.argsHash,
        argsHash: 'f'.repeat(64),
      };

      const first = await store.approvals.rebind({ ...rebind, changed: 'its description changed' });
      expect(first).toMatchObject({
        type: 'rebound',
        approval: { argsHash: 'f'.repeat(64), approvedBy: [], decision: null },
      });
      expect(await store.approvals.get(approval.requestId)).toMatchObject({
        argsHash: 'f'.repeat(64),
        approvedBy: [],
      });
      const written = (await inspect.outbox()).map((row) => row.message.type);
      expect(written.slice(-3)).toEqual(['turn-notice', 'approval-card', 'card-update']);

      // Bound again from the old definition (a second click that read it before): nothing changes.
      const second = await store.approvals.rebind({ ...rebind, changed: 'its description changed' });
      expect(second).toMatchObject({ type: 'unchanged', approval: { argsHash: 'f'.repeat(64) } });
      expect(await inspect.outbox()).toHaveLength(written.length);
      const events = await store.audit.list({ approvalId: approval.requestId });
      expect(events.filter((event) => event.kind === 'approval.rebound')).toHaveLength(1);
    });
  });

  describe('approvals.resolve', () => {
    it('decides a pending row once and says whether the turn is ready', async () => {
      const { store, clock, create } = await setup();
      const approval = await create('call_1');
      clock.advance(5_000);
      const result = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UAPPROVER',
      });
      expect(result).toMatchObject({
        type: 'decided',
        turnReady: true,
        approval: { decision: 'allowed', decidedBy: 'UAPPROVER', resolvedAt: clock.now(), always: false },
      });
      const events = await store.audit.list({ approvalId: approval.requestId });
      expect(events.map((e) => [e.kind, e.actor])).toEqual([
        ['approval.requested', 'UREQUESTER'],
        ['approval.allowed', 'UAPPROVER'],
      ]);
    });

    it('reports who decided what to a second click, and changes nothing', async () => {
      const { store, clock, create, inspect } = await setup();
      const approval = await create('call_1');
      await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'denied',
        decidedBy: 'UFIRST',
      });
      const decided = await store.approvals.get(approval.requestId);
      const outbox = await inspect.outbox();
      clock.advance(1_000);
      const second = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'USECOND',
        always: true,
      });
      expect(second).toEqual({ type: 'already-decided', approval: decided });
      expect(decided).toMatchObject({
        decision: 'denied',
        decidedBy: 'UFIRST',
        approvedBy: [],
        always: false,
      });
      expect(await store.approvals.get(approval.requestId)).toEqual(decided);
      expect(await store.grants.list({ conversationId: approval.conversationId })).toHaveLength(0);
      expect((await store.audit.list()).map((e) => e.kind)).toEqual([
        'approval.requested',
        'approval.denied',
      ]);
      expect(await inspect.outbox()).toEqual(outbox);
    });

    it('reports a decided request as decided, not expired, when clicked after its deadline', async () => {
      const { store, clock, create } = await setup();
      const approval = await create('call_1');
      await store.approvals.resolve({ requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' });
      const decided = await store.approvals.get(approval.requestId);
      clock.advance(2 * day);
      expect(
        await store.approvals.resolve({ requestId: approval.requestId, decision: 'denied', decidedBy: 'UB' }),
      ).toEqual({ type: 'already-decided', approval: decided });
      expect(await store.approvals.expireOverdue()).toEqual([]);
    });

    it('records always-allow as allowed plus a conversation grant, both audited', async () => {
      const { store, create } = await setup();
      const approval = await create('call_1');
      const result = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UAPPROVER',
        always: true,
      });
      expect(result).toMatchObject({ type: 'decided', approval: { decision: 'allowed', always: true } });
      const grants = await store.grants.list({ conversationId: approval.conversationId });
      expect(grants).toMatchObject([
        {
          scope: 'conversation',
          toolName: 'shell',
          createdBy: 'UAPPROVER',
          sourceRequestId: approval.requestId,
        },
      ]);
      const kinds = (await store.audit.list({ approvalId: approval.requestId })).map((e) => e.kind);
      expect(kinds).toEqual(['approval.requested', 'approval.allowed', 'grant.created']);
    });

    it('keeps the reason given with a denial, and audits it', async () => {
      const { store, create } = await setup();
      const approval = await create('call_1');
      const result = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'denied',
        decidedBy: 'UAPPROVER',
        reason: 'not during the freeze',
      });
      expect(result).toMatchObject({
        type: 'decided',
        approval: { decision: 'denied', decisionReason: 'not during the freeze' },
      });
      const denied = (await store.audit.list({ approvalId: approval.requestId })).at(-1);
      expect(denied).toMatchObject({ kind: 'approval.denied', data: { reason: 'not during the freeze' } });
    });

    it('grants what the decision names: a pattern, a scope, an expiry and a use limit', async () => {
      const { store, clock, create } = await setup();
      const approval = await create('call_1');
      await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UAPPROVER',
        always: true,
        grant: {
          scope: 'channel',
          scopeId: 'C1',
          match: { command: 'kubectl get *' },
          expiresAt: clock.now() + 3_600_000,
          maxUses: 3,
        },
      });
      expect(await store.grants.list({ channelId: 'C1' })).toMatchObject([
        {
          scope: 'channel',
          scopeId: 'C1',
          createdBy: 'UAPPROVER',
          match: { command: 'kubectl get *' },
          expiresAt: clock.now() + 3_600_000,
          usesLeft: 3,
          sourceRequestId: approval.requestId,
        },
      ]);
    });

    it('ignores always on a denial', async () => {
      const { store, create } = await setup();
      const approval = await create('call_1');
      const result = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'denied',
        decidedBy: 'UAPPROVER',
        always: true,
      });
      expect(result).toMatchObject({ type: 'decided', approval: { decision: 'denied', always: false } });
      expect(await store.grants.list({ conversationId: approval.conversationId })).toEqual([]);
    });

    it('expires an overdue row on the spot instead of deciding it', async () => {
      const { store, clock, create, createAfterResume } = await setup();
      const approval = await create('call_1');
      clock.advance(day - 1);
      expect(
        await store.approvals.resolve({ requestId: approval.requestId, decision: 'denied', decidedBy: 'U1' }),
      ).toMatchObject({ type: 'decided' });
      const late = await createAfterResume('call_2');
      clock.advance(day);
      const result = await store.approvals.resolve({
        requestId: late.requestId,
        decision: 'allowed',
        decidedBy: 'UAPPROVER',
      });
      expect(result).toMatchObject({
        type: 'expired',
        turnReady: true,
        approval: { decision: 'expired', decidedBy: null, resolvedAt: clock.now() },
      });
      const kinds = (await store.audit.list({ approvalId: late.requestId })).map((e) => [e.kind, e.actor]);
      expect(kinds).toEqual([
        ['approval.requested', 'UREQUESTER'],
        ['approval.expired', 'holdfast'],
      ]);
    });

    it('says unknown for a request id it never issued', async () => {
      const { store } = await setup();
      expect(
        await store.approvals.resolve({ requestId: 'apr_forged', decision: 'allowed', decidedBy: 'U1' }),
      ).toEqual({ type: 'unknown' });
    });

    it('counts votes for a quorum of two and decides on the second distinct approver', async () => {
      const { store, clock, create } = await setup();
      const approval = await create('call_1', { createdAt: clock.now(), requiredApprovals: 2 });
      const decide = (decidedBy: string) =>
        store.approvals.resolve({ requestId: approval.requestId, decision: 'allowed', decidedBy });
      expect(await decide('UA')).toMatchObject({
        type: 'vote-recorded',
        remaining: 1,
        approval: { decision: null, approvedBy: ['UA'] },
      });
      expect(await decide('UA')).toMatchObject({ type: 'already-voted', approval: { decision: null } });
      expect(await decide('UB')).toMatchObject({
        type: 'decided',
        approval: { decision: 'allowed', decidedBy: 'UB', approvedBy: ['UA', 'UB'] },
      });
      const kinds = (await store.audit.list({ approvalId: approval.requestId })).map((e) => [
        e.kind,
        e.actor,
      ]);
      expect(kinds).toEqual([
        ['approval.requested', 'UREQUESTER'],
        ['approval.vote', 'UA'],
        ['approval.allowed', 'UB'],
      ]);
    });

    it('lets one deny settle a quorum request', async () => {
      const { store, clock, create } = await setup();
      const approval = await create('call_1', { createdAt: clock.now(), requiredApprovals: 2 });
      await store.approvals.resolve({ requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' });
      const denied = await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'denied',
        decidedBy: 'UB',
      });
      expect(denied).toMatchObject({ type: 'decided', approval: { decision: 'denied', decidedBy: 'UB' } });
    });

    it('returns each request as a read of it then finds it', async () => {
      const { store, clock, create, createAfterResume } = await setup();
      type More = Partial<DecisionInput> & ResolveOptions;
      const decide = (requestId: string, decidedBy: string, { card, ...more }: More = {}) =>
        store.approvals.resolve({ requestId, decision: 'allowed', decidedBy, ...more }, { card });
      const expectAsStored = async (result: ResolveResult) => {
        if (!('approval' in result)) throw new Error(`no request in ${result.type}`);
        expect(result.approval).toEqual(await store.approvals.get(result.approval.requestId));
        return result.approval;
      };
      const quorum = await create('call_1', { createdAt: clock.now(), requiredApprovals: 2 });
      expect(quorum).toEqual(await store.approvals.get(quorum.requestId));
      const card = { channel: 'CCARDS', ts: '1700000000.000100' };
      clock.advance(1_000);
      expect((await expectAsStored(await decide(quorum.requestId, 'UA', { card }))).cards).toEqual([card]);
      clock.advance(1_000);
      await expectAsStored(await decide(quorum.requestId, 'UB', { always: true }));
      await expectAsStored(await decide((await createAfterResume('call_2')).requestId, 'UA'));
      const second = await createAfterResume('call_3', { createdAt: clock.now(), requiredApprovals: 2 });
      await decide(second.requestId, 'UA');
      const refused = await expectAsStored(
        await decide(second.requestId, 'UB', { decision: 'denied', reason: 'not during the freeze' }),
      );
      expect(refused).toMatchObject({ approvedBy: ['UA'], decisionReason: 'not during the freeze' });
    });

    it('keeps the turn waiting while a sibling approval is pending', async () => {
      const { store, clock, ...started } = await setup();
      const [first, second] = await suspendWithRequests(store, started, [
        { toolCallId: 'call_1', createdAt: clock.now() },
        { toolCallId: 'call_2', createdAt: clock.now() },
      ]);
      if (!first || !second) throw new Error('the suspension stored no requests');
      expect(
        await store.approvals.resolve({ requestId: first.requestId, decision: 'allowed', decidedBy: 'UA' }),
      ).toMatchObject({ type: 'decided', turnReady: false });
      expect(
        await store.approvals.resolve({ requestId: second.requestId, decision: 'allowed', decidedBy: 'UA' }),
      ).toMatchObject({ type: 'decided', turnReady: true });
    });
  });
}
