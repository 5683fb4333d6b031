import { describe, expect, it } from 'vitest';
import { transcriptOf } from '../../../test/support/store-reads.js';
import { conversationId } from '../conversation-id.js';
import { emptyKvSnapshot } from '../kv-snapshot.js';
import {
  awaitingTurn,
  claimed,
  createApproval,
  leaseA,
  leaseB,
  newTurn,
  startTurn,
  thread,
} from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

const done = { answer: 'done', kv: emptyKvSnapshot };

export function describeTurnsContract(open: StoreContractFactory): void {
  describe('turns.enqueue', () => {
    it('creates the conversation and queues the turn', async () => {
      const { store, clock } = await open();
      const result = await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1', { text: 'hello' }));
      expect(result).toMatchObject({
        type: 'enqueued',
        turn: {
          id: 'turn-1',
          status: 'queued',
          conversationId: conversationId(thread('1700.1')),
          triggerKey: 'C0OPS:1700.1',
          triggerTs: '1700.1',
          requestedBy: 'UREQUESTER',
          inputText: 'hello',
          leaseOwner: null,
          leaseExpiresAt: null,
          leaseToken: 0,
          attempts: 0,
          errorCode: null,
          createdAt: clock.now(),
        },
        conversation: { channelId: 'C0OPS', threadTs: '1700.1', kv: emptyKvSnapshot, createdAt: clock.now() },
      });
      expect(result.type === 'enqueued' && result.claim).toBeFalsy();
    });

    it('reports a repeated trigger key as a duplicate of the first turn and queues nothing', async () => {
      const { store } = await open();
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
      const again = await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-other'), leaseA);
      expect(again).toMatchObject({ type: 'duplicate', turn: { id: 'turn-1', status: 'queued' } });
      expect(await store.turns.get('turn-other')).toBeUndefined();
    });

    it('keeps one conversation for every turn of a thread, its kv untouched by a new turn', async () => {
      const { store, clock } = await open();
      const id = conversationId(thread('1700.1'));
      const createdAt = clock.now();
      const first = await startTurn(store);
      const kv = { values: { count: 1 }, children: {} };
      await store.turns.complete(first.fence, { answer: 'Done.', kv });
      clock.advance(1_000);
      const second = await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
      expect(second).toMatchObject({ type: 'enqueued', conversation: { id, kv, createdAt } });
    });

    it('starts the turn in the same commit when offered a lease and the thread is idle', async () => {
      const { store, clock } = await open();
      const result = await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1', { text: 'hi' }), leaseA);
      expect(result).toMatchObject({
        type: 'enqueued',
        turn: { status: 'running', leaseOwner: 'proc-a', leaseToken: 1 },
        claim: {
          type: 'claimed',
          mode: 'start',
          fence: { turnId: 'turn-1', owner: 'proc-a', token: 1 },
          turn: { status: 'running', leaseExpiresAt: clock.now() + leaseA.durationMs, attempts: 1 },
        },
      });
      const messages = await transcriptOf(store, conversationId(thread('1700.1')));
      expect(messages).toEqual([{ role: 'user', content: 'hi' }]);
    });

    it('leaves the turn queued when offered a lease while the thread is busy', async () => {
      const { store } = await open();
      await startTurn(store);
      const result = await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }), leaseB);
      expect(result).toMatchObject({ type: 'enqueued', turn: { status: 'queued', leaseOwner: null } });
      expect(result.type === 'enqueued' && result.claim).toBeFalsy();
    });
  });

  describe('conversations', () => {
    it("returns the kv a turn left on its conversation, nested agents' state included", async () => {
      const { store } = await open();
      const started = await startTurn(store);
      const id = conversationId(thread('1700.1'));
      const kv = {
        values: { count: 3, names: ['a'] },
        children: { sub: { values: { x: true }, children: {} } },
      };
      await store.turns.complete(started.fence, { answer: 'Done.', kv });
      expect((await store.conversations.get(id))?.kv).toEqual(kv);
      expect(await store.conversations.get('T:C:nope')).toBeUndefined();
    });
  });

  describe('turns.claim', () => {
    it('starts a queued turn: running, leased, attempt counted, user message in the transcript', async () => {
      const { store, clock } = await open();
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1', { text: 'deploy api' }));
      const claim = await store.turns.claim('turn-1', leaseA);
      expect(claim).toMatchObject({
        type: 'claimed',
        mode: 'start',
        fence: { turnId: 'turn-1', owner: 'proc-a', token: 1 },
        turn: {
          status: 'running',
          leaseOwner: 'proc-a',
          leaseExpiresAt: clock.now() + 60_000,
          leaseToken: 1,
          attempts: 1,
        },
      });
      const messages = await transcriptOf(store, conversationId(thread('1700.1')));
      expect(messages).toEqual([{ role: 'user', content: 'deploy api' }]);
    });

    it('gives every claim a new token: start, recover, resume', async () => {
      const { store, clock } = await open();
      const started = await startTurn(store);
      expect(started.fence.token).toBe(1);
      clock.advance(leaseA.durationMs + 1);
      const recovered = claimed(await store.turns.claim('turn-1', leaseB));
      expect(recovered.fence).toEqual({ turnId: 'turn-1', owner: 'proc-b', token: 2 });
      await createApproval(store, { ...started, fence: recovered.fence }, 'call_1', {
        createdAt: clock.now(),
      });
      await store.approvals.resolve({ requestId: 'apr_turn-1_call_1', decision: 'allowed', decidedBy: 'UA' });
      const resumed = claimed(await store.turns.claim('turn-1', leaseA));
      expect(resumed).toMatchObject({ mode: 'resume', fence: { owner: 'proc-a', token: 3 } });
      expect((await store.turns.get('turn-1'))?.leaseToken).toBe(3);
    });

    it('makes a second queued turn of the conversation wait until the first completes', async () => {
      const { store } = await open();
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
      expect(await store.turns.claim('turn-2', leaseA)).toMatchObject({
        type: 'not-claimable',
        reason: 'an earlier turn is unfinished',
      });
      const first = claimed(await store.turns.claim('turn-1', leaseA));
      expect(await store.turns.claim('turn-2', leaseA)).toMatchObject({ type: 'not-claimable' });
      await store.turns.complete(first.fence, done);
      expect(await store.turns.claim('turn-2', leaseA)).toMatchObject({ type: 'claimed', mode: 'start' });
    });

    it('does not let another conversation wait on this one', async () => {
      const { store } = await open();
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
      await store.turns.enqueue(newTurn(thread('1700.9'), 'turn-2'));
      expect(await store.turns.claim('turn-2', leaseA)).toMatchObject({ type: 'claimed' });
    });

    it('blocks later turns while one awaits approval, and resumes it once every approval is decided', async () => {
      const { store, clock } = await open();
      const { approval } = await awaitingTurn(store, clock.now());
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
      expect((await store.turns.get('turn-1'))?.status).toBe('awaiting_approval');
      expect(await store.turns.claim('turn-2', leaseA)).toMatchObject({ type: 'not-claimable' });
      expect(await store.turns.claim('turn-1', leaseA)).toMatchObject({
        type: 'not-claimable',
        reason: 'approvals still pending',
      });
      await store.approvals.resolve({
        requestId: approval.requestId,
        decision: 'allowed',
        decidedBy: 'UAPP',
      });
      expect(await store.turns.claim('turn-1', leaseA)).toMatchObject({ type: 'claimed', mode: 'resume' });
    });

    it('recovers a running turn whose lease lapsed, but not one whose lease is live', async () => {
      const { store, clock } = await open();
      await startTurn(store);
      clock.advance(leaseA.durationMs);
      expect(await store.turns.claim('turn-1', leaseB)).toMatchObject({
        type: 'not-claimable',
        reason: 'held by a live lease',
      });
      clock.advance(1);
      expect(await store.turns.claim('turn-1', leaseB)).toMatchObject({
        type: 'claimed',
        mode: 'recover',
        turn: { leaseOwner: 'proc-b', attempts: 2, leaseToken: 2 },
      });
      // Recovery does not add the user message a second time.
      const messages = await transcriptOf(store, conversationId(thread('1700.1')));
      expect(messages.filter((m) => m.role === 'user')).toHaveLength(1);
    });

    it('takes a live lease only from the owner named in takeOverFrom', async () => {
      const { store } = await open();
      await startTurn(store);
      expect(await store.turns.claim('turn-1', leaseB, { takeOverFrom: 'proc-c' })).toMatchObject({
        type: 'not-claimable',
        reason: 'held by a live lease',
      });
      expect((await store.turns.get('turn-1'))?.leaseOwner).toBe('proc-a');
      expect(await store.turns.claim('turn-1', leaseB, { takeOverFrom: 'proc-a' })).toMatchObject({
        type: 'claimed',
        mode: 'recover',
        fence: { owner: 'proc-b', token: 2 },
      });
    });

    it('refuses unknown and finished turns', async () => {
      const { store } = await open();
      expect(await store.turns.claim('nope', leaseA)).toMatchObject({
        type: 'not-claimable',
        reason: 'unknown turn',
      });
      const completed = await startTurn(store);
      await store.turns.complete(completed.fence, done);
      expect(await store.turns.claim('turn-1', leaseA)).toMatchObject({
        type: 'not-claimable',
        reason: 'turn is completed',
      });
      const failed = await startTurn(store, { key: thread('1700.2'), turnId: 'turn-2' });
      await store.turns.fail(failed.fence, { code: 'model_error', message: 'boom' });
      expect(await store.turns.claim('turn-2', leaseA, { takeOverFrom: 'proc-a' })).toMatchObject({
        type: 'not-claimable',
        reason: 'turn is failed',
      });
    });
  });
}
