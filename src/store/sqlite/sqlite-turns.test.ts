import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/support/open-test-store.js';
import { newApproval, newTurn, thread } from '../../../test/support/store-rows.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { emptyKvSnapshot } from '../../agent/kv.js';
import { conversationId } from '../conversation-id.js';
import { LeaseLostError } from '../store-errors.js';

const lease = { owner: 'proc-a', durationMs: 60_000 };

function setup() {
  const clock = createTestClock();
  const { store, db } = openTestStore(tempDir().file('holdfast.db'), { now: clock.now });
  return { store, db, clock };
}

describe('turns.enqueue', () => {
  it('creates the conversation and queues the turn', async () => {
    const { store, clock } = setup();
    const result = await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1', { text: 'hello' }));
    expect(result.type).toBe('enqueued');
    if (result.type !== 'enqueued') return;
    expect(result.turn).toMatchObject({
      id: 'turn-1',
      status: 'queued',
      conversationId: conversationId(thread('1700.1')),
      triggerKey: 'C0OPS:1700.1',
      triggerTs: '1700.1',
      requestedBy: 'UREQUESTER',
      inputText: 'hello',
      attempts: 0,
      createdAt: clock.now(),
    });
    expect(result.conversation).toMatchObject({
      channelId: 'C0OPS',
      threadTs: '1700.1',
      kv: emptyKvSnapshot,
    });
  });

  it('reports a repeated trigger key as a duplicate of the first turn and queues nothing', async () => {
    const { store } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    const again = await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-other'));
    expect(again).toMatchObject({ type: 'duplicate', turn: { id: 'turn-1' } });
    expect(await store.turns.get('turn-other')).toBeUndefined();
  });

  it('keeps one conversation row for several turns of the same thread', async () => {
    const { store, db } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
    expect(db.prepare('SELECT count(*) AS n FROM conversations').get()).toEqual({ n: 1 });
  });
});

describe('conversations', () => {
  it('saves and returns the kv of a conversation', async () => {
    const { store } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    const id = conversationId(thread('1700.1'));
    const kv = {
      values: { count: 3, names: ['a'] },
      children: { sub: { values: { x: true }, children: {} } },
    };
    await store.conversations.saveKv(id, kv);
    expect((await store.conversations.get(id))?.kv).toEqual(kv);
    expect(await store.conversations.get('T:C:nope')).toBeUndefined();
  });
});

describe('turns.claim', () => {
  it('starts a queued turn: running, leased, attempt counted, user message in the transcript', async () => {
    const { store, clock } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1', { text: 'deploy api' }));
    const claim = await store.turns.claim('turn-1', lease);
    expect(claim).toMatchObject({
      type: 'claimed',
      mode: 'start',
      turn: { status: 'running', leaseOwner: 'proc-a', leaseExpiresAt: clock.now() + 60_000, attempts: 1 },
    });
    const messages = await store.transcript.messages(conversationId(thread('1700.1')));
    expect(messages.map((m) => m.message)).toEqual([{ role: 'user', content: 'deploy api' }]);
  });

  it('makes a second queued turn of the conversation wait until the first completes', async () => {
    const { store } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
    expect(await store.turns.claim('turn-2', lease)).toMatchObject({ type: 'not-claimable' });
    await store.turns.claim('turn-1', lease);
    expect(await store.turns.claim('turn-2', lease)).toMatchObject({ type: 'not-claimable' });
    await store.turns.complete('turn-1', 'proc-a', 'done', emptyKvSnapshot);
    expect(await store.turns.claim('turn-2', lease)).toMatchObject({ type: 'claimed', mode: 'start' });
  });

  it('does not let another conversation wait on this one', async () => {
    const { store } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.enqueue(newTurn(thread('1700.9'), 'turn-2'));
    expect(await store.turns.claim('turn-2', lease)).toMatchObject({ type: 'claimed' });
  });

  it('blocks later turns while one awaits approval, and resumes it only once every approval is decided', async () => {
    const { store, clock } = setup();
    const first = newTurn(thread('1700.1'), 'turn-1');
    await store.turns.enqueue(first);
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
    await store.turns.claim('turn-1', lease);
    const created = await store.approvals.create(newApproval(first, 'call_1', { createdAt: clock.now() }));
    await store.turns.suspend('turn-1', 'proc-a', created.approval.requestId, emptyKvSnapshot);
    expect((await store.turns.get('turn-1'))?.status).toBe('awaiting_approval');

    expect(await store.turns.claim('turn-2', lease)).toMatchObject({ type: 'not-claimable' });
    expect(await store.turns.claim('turn-1', lease)).toMatchObject({
      type: 'not-claimable',
      reason: 'approvals still pending',
    });
    await store.approvals.resolve({
      requestId: created.approval.requestId,
      decision: 'allowed',
      decidedBy: 'UAPP',
    });
    expect(await store.turns.claim('turn-1', lease)).toMatchObject({ type: 'claimed', mode: 'resume' });
  });

  it('recovers a running turn whose lease lapsed, but not one whose lease is live', async () => {
    const { store, clock } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.claim('turn-1', lease);
    const other = { owner: 'proc-b', durationMs: 60_000 };
    clock.advance(59_999);
    expect(await store.turns.claim('turn-1', other)).toMatchObject({
      type: 'not-claimable',
      reason: 'held by a live lease',
    });
    clock.advance(2);
    expect(await store.turns.claim('turn-1', other)).toMatchObject({
      type: 'claimed',
      mode: 'recover',
      turn: { leaseOwner: 'proc-b', attempts: 2 },
    });
    // Recovery does not add the user message a second time.
    const messages = await store.transcript.messages(conversationId(thread('1700.1')));
    expect(messages.filter((m) => m.message.role === 'user')).toHaveLength(1);
  });

  it('refuses unknown and finished turns', async () => {
    const { store } = setup();
    expect(await store.turns.claim('nope', lease)).toMatchObject({
      type: 'not-claimable',
      reason: 'unknown turn',
    });
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.claim('turn-1', lease);
    await store.turns.complete('turn-1', 'proc-a', 'done', emptyKvSnapshot);
    expect(await store.turns.claim('turn-1', lease)).toMatchObject({
      type: 'not-claimable',
      reason: 'turn is completed',
    });
  });
});

describe('turns leases and endings', () => {
  it('renews only a lease it holds', async () => {
    const { store, clock } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.claim('turn-1', lease);
    clock.advance(30_000);
    expect(await store.turns.renewLease('turn-1', lease)).toBe(true);
    expect((await store.turns.get('turn-1'))?.leaseExpiresAt).toBe(clock.now() + 60_000);
    expect(await store.turns.renewLease('turn-1', { owner: 'proc-b', durationMs: 1 })).toBe(false);
  });

  it('completes with the answer in the transcript and the kv on the conversation', async () => {
    const { store } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.claim('turn-1', lease);
    const kv = { values: { deployed: 'api' }, children: {} };
    await store.turns.complete('turn-1', 'proc-a', 'All done.', kv);
    expect(await store.turns.get('turn-1')).toMatchObject({ status: 'completed', leaseOwner: null });
    expect(await store.transcript.finalAnswer('turn-1')).toBe('All done.');
    expect((await store.conversations.get(conversationId(thread('1700.1'))))?.kv).toEqual(kv);
  });

  it('refuses to complete or suspend a turn held by someone else', async () => {
    const { store } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.claim('turn-1', lease);
    await expect(store.turns.complete('turn-1', 'proc-b', 'x', emptyKvSnapshot)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await expect(store.turns.suspend('turn-1', 'proc-b', 'apr', emptyKvSnapshot)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect(await store.transcript.finalAnswer('turn-1')).toBeUndefined();
  });

  it('suspends with the kv snapshot on the approval row, which resumeKv returns', async () => {
    const { store, clock } = setup();
    const turn = newTurn(thread('1700.1'), 'turn-1');
    await store.turns.enqueue(turn);
    await store.turns.claim('turn-1', lease);
    const { approval } = await store.approvals.create(
      newApproval(turn, 'call_1', { createdAt: clock.now() }),
    );
    const kv = { values: { count: 2 }, children: {} };
    await store.turns.suspend('turn-1', 'proc-a', approval.requestId, kv);
    expect(await store.turns.get('turn-1')).toMatchObject({
      status: 'awaiting_approval',
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    expect(await store.turns.resumeKv('turn-1')).toEqual(kv);
    expect(await store.turns.resumeKv('turn-other')).toBeUndefined();
  });

  it('fails a turn with its code and message, with or without an owner', async () => {
    const { store } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.enqueue(newTurn(thread('1700.2'), 'turn-2'));
    await store.turns.claim('turn-1', lease);
    await store.turns.fail('turn-1', 'proc-a', { code: 'model_error', message: 'boom' });
    await store.turns.fail('turn-2', null, { code: 'config_invalid', message: 'no tools' });
    expect(await store.turns.get('turn-1')).toMatchObject({
      status: 'failed',
      errorCode: 'model_error',
      errorMessage: 'boom',
    });
    expect(await store.turns.get('turn-2')).toMatchObject({ status: 'failed', errorCode: 'config_invalid' });
  });

  it('releases a lease so the turn is recoverable at once', async () => {
    const { store } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.claim('turn-1', lease);
    expect((await store.turns.recoverable()).staleRunning).toHaveLength(0);
    await store.turns.release('turn-1', 'proc-a');
    expect((await store.turns.recoverable()).staleRunning.map((t) => t.id)).toEqual(['turn-1']);
    expect(await store.turns.claim('turn-1', { owner: 'proc-b', durationMs: 1_000 })).toMatchObject({
      mode: 'recover',
    });
  });

  it('records when the answer reached the thread', async () => {
    const { store, clock } = setup();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.claim('turn-1', lease);
    await store.turns.complete('turn-1', 'proc-a', 'ok', emptyKvSnapshot);
    expect((await store.turns.recoverable()).unpostedAnswers.map((t) => t.id)).toEqual(['turn-1']);
    await store.turns.markAnswerPosted('turn-1');
    expect((await store.turns.get('turn-1'))?.answerPostedAt).toBe(clock.now());
    expect((await store.turns.recoverable()).unpostedAnswers).toHaveLength(0);
  });
});

describe('turns.nextRunnable and recoverable', () => {
  it('offers the oldest queued turn only when nothing earlier is active', async () => {
    const { store } = setup();
    const id = conversationId(thread('1700.1'));
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
    expect((await store.turns.nextRunnable(id))?.id).toBe('turn-1');
    await store.turns.claim('turn-1', lease);
    expect(await store.turns.nextRunnable(id)).toBeUndefined();
    await store.turns.complete('turn-1', 'proc-a', 'ok', emptyKvSnapshot);
    expect((await store.turns.nextRunnable(id))?.id).toBe('turn-2');
  });

  it('lists runnable queued turns and decided awaiting turns', async () => {
    const { store, clock } = setup();
    const waiting = newTurn(thread('1700.1'), 'turn-1');
    await store.turns.enqueue(waiting);
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
    await store.turns.enqueue(newTurn(thread('1700.3'), 'turn-3'));
    await store.turns.claim('turn-1', lease);
    const { approval } = await store.approvals.create(
      newApproval(waiting, 'call_1', { createdAt: clock.now() }),
    );
    await store.turns.suspend('turn-1', 'proc-a', approval.requestId, emptyKvSnapshot);

    let recoverable = await store.turns.recoverable();
    expect(recoverable.queued.map((t) => t.id)).toEqual(['turn-3']);
    expect(recoverable.decidedAwaiting).toHaveLength(0);
    await store.approvals.resolve({ requestId: approval.requestId, decision: 'denied', decidedBy: 'UAPP' });
    recoverable = await store.turns.recoverable();
    expect(recoverable.decidedAwaiting.map((t) => t.id)).toEqual(['turn-1']);
  });
});
