import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/support/open-test-store.js';
import { newApproval, newTurn, thread } from '../../../test/support/store-rows.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { conversationId } from '../conversation-id.js';

const day = 24 * 60 * 60_000;

async function setup() {
  const clock = createTestClock();
  const { store, db } = openTestStore(tempDir().file('holdfast.db'), { now: clock.now });
  const turn = newTurn(thread('1700.1'), 'turn-1');
  await store.turns.enqueue(turn);
  await store.turns.claim(turn.turnId, { owner: 'proc-a', durationMs: 60_000 });
  const create = async (
    toolCallId: string,
    options: Parameters<typeof newApproval>[2] = { createdAt: clock.now() },
  ) => (await store.approvals.create(newApproval(turn, toolCallId, options))).approval;
  return { store, db, clock, turn, create };
}

describe('approvals.create', () => {
  it('inserts a pending row with the exact arguments and audits the request', async () => {
    const { store, clock, create } = await setup();
    const approval = await create('call_1', {
      createdAt: clock.now(),
      arguments: { command: 'rm -rf /tmp/x' },
    });
    expect(approval).toMatchObject({
      requestId: 'apr_turn-1_call_1',
      toolCallId: 'call_1',
      decision: null,
      resolvedAt: null,
      arguments: { command: 'rm -rf /tmp/x' },
      createdAt: clock.now(),
      expiresAt: clock.now() + day,
      approvedBy: [],
      always: false,
    });
    const events = await store.audit.list({ approvalId: approval.requestId });
    expect(events.map((e) => [e.kind, e.actor])).toEqual([['approval.requested', 'UREQUESTER']]);
  });

  it('returns the existing row for the same call untouched', async () => {
    const { store, turn, clock } = await setup();
    await store.approvals.create(newApproval(turn, 'call_1', { createdAt: clock.now() }));
    const again = await store.approvals.create(
      newApproval(turn, 'call_1', { createdAt: clock.now(), requestId: 'apr_second', summary: 'other' }),
    );
    expect(again).toMatchObject({ type: 'exists', approval: { requestId: 'apr_turn-1_call_1' } });
    expect(await store.approvals.get('apr_second')).toBeUndefined();
  });

  it('finds rows by request id, by call and by turn', async () => {
    const { store, create, turn } = await setup();
    const first = await create('call_1');
    await create('call_2');
    expect((await store.approvals.get(first.requestId))?.toolCallId).toBe('call_1');
    expect((await store.approvals.forCall(conversationId(turn), 'call_2'))?.requestId).toBe(
      'apr_turn-1_call_2',
    );
    expect(await store.approvals.forCall(conversationId(turn), 'call_9')).toBeUndefined();
    expect((await store.approvals.forTurn('turn-1')).map((a) => a.toolCallId)).toEqual(['call_1', 'call_2']);
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
    const kinds = (await store.audit.list({ approvalId: approval.requestId })).map((e) => e.kind);
    expect(kinds).toEqual(['approval.requested', 'approval.allowed']);
  });

  it('reports who decided what to a second click, and changes nothing', async () => {
    const { store, clock, create } = await setup();
    const approval = await create('call_1');
    await store.approvals.resolve({ requestId: approval.requestId, decision: 'denied', decidedBy: 'UFIRST' });
    const decidedAt = clock.now();
    clock.advance(1_000);
    const second = await store.approvals.resolve({
      requestId: approval.requestId,
      decision: 'allowed',
      decidedBy: 'USECOND',
      always: true,
    });
    expect(second).toMatchObject({
      type: 'already-decided',
      approval: { decision: 'denied', decidedBy: 'UFIRST', resolvedAt: decidedAt, always: false },
    });
    expect(await store.grants.list({ conversationId: approval.conversationId })).toHaveLength(0);
  });

  it('records always-allow as allowed plus a conversation grant', async () => {
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
  });

  it('expires an overdue row on the spot instead of deciding it', async () => {
    const { store, clock, create } = await setup();
    const approval = await create('call_1');
    clock.advance(day);
    const result = await store.approvals.resolve({
      requestId: approval.requestId,
      decision: 'allowed',
      decidedBy: 'UAPPROVER',
    });
    expect(result).toMatchObject({
      type: 'expired',
      turnReady: true,
      approval: { decision: 'expired', decidedBy: null },
    });
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
    const first = await store.approvals.resolve({
      requestId: approval.requestId,
      decision: 'allowed',
      decidedBy: 'UA',
    });
    expect(first).toMatchObject({
      type: 'vote-recorded',
      remaining: 1,
      approval: { decision: null, approvedBy: ['UA'] },
    });
    const repeat = await store.approvals.resolve({
      requestId: approval.requestId,
      decision: 'allowed',
      decidedBy: 'UA',
    });
    expect(repeat).toMatchObject({ type: 'already-voted', approval: { decision: null } });
    const second = await store.approvals.resolve({
      requestId: approval.requestId,
      decision: 'allowed',
      decidedBy: 'UB',
    });
    expect(second).toMatchObject({
      type: 'decided',
      approval: { decision: 'allowed', decidedBy: 'UB', approvedBy: ['UA', 'UB'] },
    });
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

  it('keeps the turn waiting while a sibling approval is pending', async () => {
    const { store, create } = await setup();
    const first = await create('call_1');
    const second = await create('call_2');
    expect(
      await store.approvals.resolve({ requestId: first.requestId, decision: 'allowed', decidedBy: 'UA' }),
    ).toMatchObject({ type: 'decided', turnReady: false });
    expect(
      await store.approvals.resolve({ requestId: second.requestId, decision: 'allowed', decidedBy: 'UA' }),
    ).toMatchObject({ type: 'decided', turnReady: true });
  });
});

describe('approvals look-ups and sweep', () => {
  it('attaches the card and stops listing the row as card-less', async () => {
    const { store, create } = await setup();
    const approval = await create('call_1');
    expect((await store.approvals.withoutCard()).map((a) => a.requestId)).toEqual([approval.requestId]);
    await store.approvals.attachCard(approval.requestId, 'C0OPS', '1700.5');
    expect(await store.approvals.get(approval.requestId)).toMatchObject({
      cardChannel: 'C0OPS',
      cardTs: '1700.5',
    });
    expect(await store.approvals.withoutCard()).toHaveLength(0);
  });

  it('expires only overdue pending rows and audits each', async () => {
    const { store, clock, create } = await setup();
    const soon = await create('call_1', { createdAt: clock.now(), expiresAt: clock.now() + 1_000 });
    const later = await create('call_2', { createdAt: clock.now(), expiresAt: clock.now() + 10_000 });
    clock.advance(1_000);
    const expired = await store.approvals.expireOverdue();
    expect(expired.map((a) => [a.requestId, a.decision])).toEqual([[soon.requestId, 'expired']]);
    expect((await store.approvals.get(later.requestId))?.decision).toBeNull();
    expect((await store.audit.list({ approvalId: soon.requestId })).map((e) => e.kind)).toContain(
      'approval.expired',
    );
    expect(await store.approvals.expireOverdue()).toHaveLength(0);
  });

  it('lists pending rows by conversation and channel, and recent decisions newest first', async () => {
    const { store, clock, create } = await setup();
    const elsewhere = newTurn(thread('1800.1', 'C0OTHER'), 'turn-9');
    await store.turns.enqueue(elsewhere);
    await store.approvals.create(newApproval(elsewhere, 'call_1', { createdAt: clock.now() }));
    const first = await create('call_1');
    const second = await create('call_2');
    expect(await store.approvals.pending()).toHaveLength(3);
    expect((await store.approvals.pending({ channelId: 'C0OTHER' })).map((a) => a.turnId)).toEqual([
      'turn-9',
    ]);
    expect(await store.approvals.pending({ conversationId: first.conversationId, limit: 1 })).toHaveLength(1);

    await store.approvals.resolve({ requestId: first.requestId, decision: 'allowed', decidedBy: 'UA' });
    clock.advance(10);
    await store.approvals.resolve({ requestId: second.requestId, decision: 'denied', decidedBy: 'UA' });
    expect((await store.approvals.recentlyDecided(5)).map((a) => a.requestId)).toEqual([
      second.requestId,
      first.requestId,
    ]);
    expect(await store.approvals.pending({ conversationId: first.conversationId })).toHaveLength(0);
  });
});
