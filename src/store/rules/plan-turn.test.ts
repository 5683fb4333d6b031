import { describe, expect, it } from 'vitest';
import { queuedTurn } from '../../../test/support/store-rows.js';
import { emptyKvSnapshot } from '../kv-snapshot.js';
import type { NewApproval } from '../ports/approval-store.js';
import type { Turn } from '../records.js';
import { LeaseLostError } from '../store-errors.js';
import { type ClaimSnapshot, planClaim, planComplete, planFail, planSuspend } from './plan-turn.js';
import type { TurnHolder } from './turn-writes.js';

const at = 1_000_000;
const conversationId = 'T1:C1:1700.1';
const lease = { owner: 'proc-a', durationMs: 15_000 };
const fence = { turnId: 'turn_1', owner: 'proc-a', token: 3 };
const holder: TurnHolder = { conversationId, status: 'running', leaseOwner: 'proc-a', leaseToken: 3 };

const turn = queuedTurn(conversationId, at);

describe('planClaim', () => {
  const snapshot = (changes: Partial<Turn> = {}, facts: Partial<ClaimSnapshot> = {}): ClaimSnapshot => ({
    turn: { ...turn, ...changes },
    blockedByEarlier: false,
    pendingApprovals: 0,
    ...facts,
  });

  it.each([
    ['a queued turn starts', snapshot(), 'start', 1],
    ['a decided turn resumes', snapshot({ status: 'awaiting_approval' }), 'resume', 0],
    ['a lapsed running turn is recovered', snapshot({ status: 'running', leaseOwner: 'gone' }), 'recover', 0],
  ] as const)('%s', (_name, read, mode, userMessages) => {
    const plan = planClaim(read, lease, {}, at);
    if (plan.type !== 'take') throw new Error(`expected a take, got ${plan.reason}`);
    expect(plan.mode).toBe(mode);
    // Guarded by the state read: a claim that came first leaves the row changed, and this take writes nothing.
    expect(plan.writes.change).toEqual({
      type: 'take',
      owner: 'proc-a',
      expiresAt: at + 15_000,
      from: { status: read.turn.status, leaseToken: 2 },
    });
    expect(plan.writes.messages).toHaveLength(userMessages);
    expect(plan.writes).toMatchObject({ approvals: [], outbox: [], markReady: false, finished: false });
  });

  it.each([
    ['queued behind an earlier turn', snapshot({}, { blockedByEarlier: true })],
    ['awaiting a pending request', snapshot({ status: 'awaiting_approval' }, { pendingApprovals: 1 })],
    ['running under a live lease', snapshot({ status: 'running', leaseOwner: 'b', leaseExpiresAt: at + 1 })],
    ['completed', snapshot({ status: 'completed' })],
  ])('refuses a turn %s', (_name, read) => {
    expect(planClaim(read, lease, {}, at).type).toBe('refuse');
  });

  it('takes a live lease over from an owner known to be gone', () => {
    const read = snapshot({ status: 'running', leaseOwner: 'dead', leaseExpiresAt: at + 1 });
    expect(planClaim(read, lease, { takeOverFrom: 'dead' }, at)).toMatchObject({ mode: 'recover' });
  });
});

const lostHolders: readonly [string, TurnHolder | undefined][] = [
  ['an unknown turn', undefined],
  ['a turn taken by another claim', { ...holder, leaseToken: 4 }],
  ['a turn held by another process', { ...holder, leaseOwner: 'proc-b' }],
  ['a turn no longer running', { ...holder, status: 'awaiting_approval' }],
];

describe('planComplete', () => {
  it('writes the answer, the thread kv, the status and the outbox, and frees the thread', () => {
    const outbox = [
      {
        key: 'notice:turn_1:done',
        conversationId,
        turnId: 'turn_1',
        message: {
          type: 'turn-notice' as const,
          turnId: 'turn_1',
          notice: { type: 'stopped' as const, by: 'UBOB' },
        },
      },
    ];
    const writes = planComplete(
      holder,
      fence,
      { answer: 'done', kv: { values: { a: 1 }, children: {} } },
      { outbox },
    );
    expect(writes).toMatchObject({
      turnId: 'turn_1',
      conversationId,
      change: { type: 'end', status: 'completed', error: null },
      messages: [{ transcriptId: conversationId, message: { role: 'assistant', content: 'done' } }],
      kv: '{"values":{"a":1},"children":{}}',
      outbox,
      finished: true,
    });
    expect(writes.kvSnapshot).toBeUndefined();
  });

  it.each(lostHolders)('changes nothing for %s', (_name, read) => {
    expect(() => planComplete(read, fence, { answer: 'done', kv: emptyKvSnapshot })).toThrow(LeaseLostError);
  });
});

describe('planSuspend', () => {
  const approval = { requestId: 'apr_1', transcriptId: conversationId, toolCallId: 'call_1' } as NewApproval;
  const message = { role: 'assistant' as const, content: null, toolCalls: [] };
  const restartCall = {
    conversationId,
    turnId: 'turn_1',
    transcriptId: conversationId,
    toolCallId: 'call_0',
  };

  it('parks the turn with its batch, the kv snapshot and the ready mark in one write set', () => {
    const outboxFor = () => [];
    const writes = planSuspend(
      holder,
      fence,
      { values: { b: 2 }, children: {} },
      {},
      {
        transcriptId: 'T1:C1:1700.1/nested',
        message,
        approvals: [approval],
        restartCall,
        outboxFor,
      },
    );
    expect(writes).toMatchObject({
      change: { type: 'end', status: 'awaiting_approval', error: null },
      messages: [{ transcriptId: 'T1:C1:1700.1/nested', message }],
      approvals: [approval],
      forgetStart: restartCall,
      kvSnapshot: '{"values":{"b":2},"children":{}}',
      markReady: true,
      outboxFor,
      finished: false,
    });
    // Invariant 5: the kv goes with the request, not onto the thread, until the turn completes.
    expect(writes.kv).toBeUndefined();
  });

  it('still snapshots the kv and marks ready without a batch (a request decided from the inbox)', () => {
    const writes = planSuspend(holder, fence, emptyKvSnapshot);
    expect(writes).toMatchObject({
      messages: [],
      approvals: [],
      kvSnapshot: JSON.stringify(emptyKvSnapshot),
      markReady: true,
    });
  });

  it.each(lostHolders)('changes nothing for %s', (_name, read) => {
    expect(() => planSuspend(read, fence, emptyKvSnapshot)).toThrow(LeaseLostError);
  });
});

describe('planFail', () => {
  const error = { code: 'stopped', message: 'stopped by a person', stoppedBy: 'UBOB' };

  it('ends a held turn as failed with its error', () => {
    expect(planFail(holder, fence, error)).toMatchObject({
      change: { type: 'end', status: 'failed', error },
      finished: true,
    });
  });

  it.each(lostHolders)('refuses a fenced failure of %s', (_name, read) => {
    expect(() => planFail(read, fence, error)).toThrow(LeaseLostError);
  });

  it.each(['queued', 'running', 'awaiting_approval'] as const)('ends an unfenced %s turn', (status) => {
    expect(planFail({ ...holder, status, leaseOwner: 'x' }, { turnId: 'turn_1' }, error)).toMatchObject({
      change: { type: 'end', status: 'failed' },
    });
  });

  it.each([
    ['an unknown turn', undefined],
    ['a completed turn', { ...holder, status: 'completed' as const }],
    ['a failed turn', { ...holder, status: 'failed' as const }],
  ])('writes nothing, not even the outbox, for an unfenced failure of %s', (_name, read) => {
    expect(planFail(read, { turnId: 'turn_1' }, error, { outbox: [] })).toBeUndefined();
  });
});
