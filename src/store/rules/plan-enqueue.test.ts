import { describe, expect, it } from 'vitest';
import { queuedTurn } from '../../../test/support/store-rows.js';
import { emptyKvSnapshot } from '../kv-snapshot.js';
import type { NewTurn } from '../ports/turn-store.js';
import { countLimits, type EnqueueSnapshot, enqueueOutcome, planEnqueue } from './plan-enqueue.js';

const at = 1_000_000;
const conversationId = 'T1:C1:1700.1';
const lease = { owner: 'proc-a', durationMs: 15_000 };

const newTurn: NewTurn = {
  teamId: 'T1',
  channelId: 'C1',
  threadTs: '1700.1',
  turnId: 'turn_1',
  triggerKey: 'C1:1700.2',
  triggerTs: '1700.2',
  requestedBy: 'UASKER',
  inputText: 'restart web',
  inboundKey: 'inbound_1',
};

const turn = queuedTurn(conversationId, at);

const idle: EnqueueSnapshot = { unfinishedInThread: 0, unfinishedByUser: 0 };
const limits = { perThread: 2, perUser: 3 };

describe('planEnqueue', () => {
  it.each([
    ['a message made into a turn already', { ...idle, duplicate: turn }, undefined, 'duplicate'],
    ['a busy thread over its limit', { ...idle, unfinishedInThread: 2 }, limits, 'refused'],
    ['a busy person over their limit', { ...idle, unfinishedByUser: 3 }, limits, 'refused'],
    ['a thread with room', { unfinishedInThread: 1, unfinishedByUser: 2 }, limits, 'enqueue'],
    ['no limits at all', { unfinishedInThread: 9, unfinishedByUser: 99 }, undefined, 'enqueue'],
  ] as const)('%s: %s', (_name, snapshot, admission, expected) => {
    const plan = planEnqueue(snapshot, newTurn, conversationId, { limits: admission, at });
    expect(plan.type).toBe(expected);
    // The kept message leaves the store whatever the outcome.
    expect(plan.writes.settleInbound).toBe('inbound_1');
    expect(plan.writes.insert !== undefined).toBe(expected === 'enqueue');
  });

  it('refuses with the reason and the unfinished count, writing nothing but the settled message', () => {
    const plan = planEnqueue({ ...idle, unfinishedByUser: 3 }, newTurn, conversationId, { limits, at });
    expect(plan).toMatchObject({ type: 'refused', reason: 'user-busy', unfinished: 3 });
    expect(plan.writes).toMatchObject({ messages: [], approvals: [], outbox: [] });
    expect(plan.writes.change).toBeUndefined();
  });

  it('starts the turn in the same commit when the thread is idle and a lease is offered', () => {
    const plan = planEnqueue(idle, newTurn, conversationId, { lease, at });
    expect(plan).toMatchObject({ type: 'enqueue', start: lease });
    expect(plan.writes.change).toEqual({
      type: 'take',
      owner: 'proc-a',
      expiresAt: at + 15_000,
      from: { status: 'queued', leaseToken: 0 },
    });
    expect(plan.writes.messages).toEqual([
      { transcriptId: conversationId, message: { role: 'user', content: 'restart web' } },
    ]);
  });

  it('leaves the turn queued when an earlier turn of the thread is unfinished', () => {
    const plan = planEnqueue({ ...idle, unfinishedInThread: 1 }, newTurn, conversationId, { lease, at });
    expect(plan.type === 'enqueue' && plan.start).toBe(undefined);
    expect(plan.writes.change).toBeUndefined();
    expect(plan.writes.messages).toEqual([]);
  });

  it.each([
    [undefined, undefined, { inThread: 0, byUser: 0 }],
    [lease, undefined, { inThread: 1, byUser: 0 }],
    [undefined, limits, { inThread: 2, byUser: 3 }],
    [lease, limits, { inThread: 2, byUser: 3 }],
  ] as const)('counts only as far as it needs (lease %o, limits %o)', (offered, admission, expected) => {
    expect(countLimits(offered, admission)).toEqual(expected);
  });
});

describe('enqueueOutcome', () => {
  const conversation = {
    id: conversationId,
    teamId: 'T1',
    channelId: 'C1',
    threadTs: '1700.1',
    kv: emptyKvSnapshot,
    createdAt: at,
  };
  const running = { ...turn, status: 'running' as const, leaseOwner: 'proc-a', leaseToken: 1 };

  it('answers a started turn with its claim and the thread it read', () => {
    const plan = planEnqueue(idle, newTurn, conversationId, { lease, at });
    const applied = { type: 'applied' as const, turn: running, conversation, approvals: [] };
    expect(enqueueOutcome(plan, applied)).toEqual({
      type: 'enqueued',
      turn: running,
      conversation,
      claim: {
        type: 'claimed',
        turn: running,
        mode: 'start',
        fence: { turnId: 'turn_1', owner: 'proc-a', token: 1 },
        conversation,
      },
    });
  });

  it('answers a queued turn without a claim', () => {
    const plan = planEnqueue(idle, newTurn, conversationId, { at });
    const applied = { type: 'applied' as const, turn, conversation, approvals: [] };
    expect(enqueueOutcome(plan, applied)).toEqual({ type: 'enqueued', turn, conversation, claim: undefined });
  });

  it('tells the store to read the winner when another insert of the same message won', () => {
    const plan = planEnqueue(idle, newTurn, conversationId, { at });
    expect(enqueueOutcome(plan, { type: 'duplicate' })).toEqual({ type: 'raced' });
  });

  it('answers a duplicate and a refusal as planned, whatever was applied', () => {
    const applied = { type: 'applied' as const, approvals: [] };
    const duplicate = planEnqueue({ ...idle, duplicate: turn }, newTurn, conversationId, { at });
    expect(enqueueOutcome(duplicate, applied)).toEqual({ type: 'duplicate', turn });
    const refused = planEnqueue({ ...idle, unfinishedInThread: 2 }, newTurn, conversationId, { limits, at });
    expect(enqueueOutcome(refused, applied)).toEqual({
      type: 'refused',
      reason: 'thread-busy',
      unfinished: 2,
    });
  });
});
