import { describe, expect, it } from 'vitest';
import { finalAnswerOf } from '../../../test/support/store-reads.js';
import { conversationId } from '../conversation-id.js';
import { emptyKvSnapshot } from '../kv-snapshot.js';
import {
  answerEntry,
  awaitingTurn,
  claimed,
  leaseA,
  leaseB,
  newApproval,
  newTurn,
  startTurn,
  suspendWithRequests,
  thread,
} from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

const done = { answer: 'done', kv: emptyKvSnapshot };

export function describeTurnEndingsContract(open: StoreContractFactory): void {
  describe('turns leases and endings', () => {
    it('renews a lease it holds', async () => {
      const { store, clock } = await open();
      const { fence } = await startTurn(store);
      clock.advance(30_000);
      expect(await store.turns.renewLease(fence, 45_000)).toBe(true);
      expect(await store.turns.get('turn-1')).toMatchObject({
        leaseOwner: 'proc-a',
        leaseExpiresAt: clock.now() + 45_000,
        leaseToken: 1,
      });
    });

    it('completes with the answer in the transcript, the kv on the conversation and the lease gone', async () => {
      const { store } = await open();
      const { fence } = await startTurn(store);
      const kv = { values: { deployed: 'api' }, children: {} };
      await store.turns.complete(fence, { answer: 'All done.', kv });
      expect(await store.turns.get('turn-1')).toMatchObject({
        status: 'completed',
        leaseOwner: null,
        leaseExpiresAt: null,
      });
      expect(await finalAnswerOf(store, 'turn-1')).toBe('All done.');
      expect((await store.conversations.get(conversationId(thread('1700.1'))))?.kv).toEqual(kv);
    });

    it('writes the effects of a completion in its commit, unclaimed until a worker claims them', async () => {
      const { store, inspect } = await open();
      const started = await startTurn(store);
      const answer = answerEntry('turn-1', started.conversationId);
      await store.turns.complete(started.fence, done, { outbox: [answer] });
      expect(await inspect.outbox()).toMatchObject([
        {
          key: answer.key,
          turnId: 'turn-1',
          message: answer.message,
          status: 'pending',
          attempts: 0,
          claim: null,
        },
      ]);
    });

    it('suspends with the kv snapshot on the newest approval, which resumeKv returns', async () => {
      const { store, clock, inspect } = await open();
      const started = await startTurn(store);
      const newest = newApproval(started.turn, 'call_2', { createdAt: clock.now() });
      const kv = { values: { count: 2 }, children: {} };
      const card = {
        key: `card:${newest.requestId}`,
        conversationId: started.conversationId,
        turnId: 'turn-1',
        requestId: newest.requestId,
        message: { type: 'approval-card' as const, requestId: newest.requestId },
      };
      await store.turns.suspend(
        started.fence,
        kv,
        { outbox: [card] },
        {
          transcriptId: started.conversationId,
          approvals: [newApproval(started.turn, 'call_1', { createdAt: clock.now() }), newest],
        },
      );
      expect(await store.turns.get('turn-1')).toMatchObject({
        status: 'awaiting_approval',
        leaseOwner: null,
        leaseExpiresAt: null,
      });
      expect(await store.turns.resumeKv('turn-1')).toEqual(kv);
      expect(await store.turns.resumeKv('turn-other')).toBeUndefined();
      expect(await inspect.outbox()).toMatchObject([{ key: card.key, status: 'pending', claim: null }]);
    });

    it('restores the kv of the latest suspension after a resume and a second suspension', async () => {
      const { store, clock } = await open();
      const started = await awaitingTurn(store, clock.now());
      await store.approvals.resolve({
        requestId: started.approval.requestId,
        decision: 'allowed',
        decidedBy: 'U',
      });
      const resumed = claimed(await store.turns.claim('turn-1', leaseA));
      clock.advance(1);
      const kv = { values: { step: 2 }, children: {} };
      await suspendWithRequests(
        store,
        { ...started, fence: resumed.fence },
        [{ toolCallId: 'call_2', createdAt: clock.now() }],
        { kv },
      );
      expect(await store.turns.resumeKv('turn-1')).toEqual(kv);
    });

    it('fails a turn with its code and message, with its fence or, for an operator, without', async () => {
      const { store, inspect } = await open();
      const running = await startTurn(store);
      await store.turns.enqueue(newTurn(thread('1700.2'), 'turn-2'));
      await store.turns.fail(running.fence, { code: 'model_error', message: 'boom' });
      const notice = answerEntry('turn-2', conversationId(thread('1700.2')), 'failed');
      await store.turns.fail(
        { turnId: 'turn-2' },
        { code: 'config_invalid', message: 'no tools' },
        {
          outbox: [notice],
        },
      );
      expect(await store.turns.get('turn-1')).toMatchObject({
        status: 'failed',
        errorCode: 'model_error',
        errorMessage: 'boom',
        leaseOwner: null,
      });
      expect(await store.turns.get('turn-2')).toMatchObject({
        status: 'failed',
        errorCode: 'config_invalid',
      });
      expect((await inspect.outbox()).map((row) => row.key)).toEqual([notice.key]);
    });

    it('leaves a finished turn alone when failed without a fence, and writes none of its effects', async () => {
      const { store, inspect } = await open();
      const { fence, conversationId: id } = await startTurn(store);
      await store.turns.complete(fence, done);
      await store.turns.fail(
        { turnId: 'turn-1' },
        { code: 'late', message: 'too late' },
        {
          outbox: [answerEntry('turn-1', id, 'failed')],
        },
      );
      expect(await store.turns.get('turn-1')).toMatchObject({ status: 'completed', errorCode: null });
      expect(await inspect.outbox()).toEqual([]);
    });

    it('releases a lease so another process recovers the turn at once', async () => {
      const { store } = await open();
      const { fence } = await startTurn(store);
      await store.turns.release(fence);
      const turn = await store.turns.get('turn-1');
      expect(turn).toMatchObject({ status: 'running', leaseOwner: null, leaseExpiresAt: null });
      expect((await store.turns.recoverable()).running.map((t) => t.id)).toEqual(['turn-1']);
      expect(await store.turns.claim('turn-1', leaseB)).toMatchObject({ mode: 'recover' });
    });
  });

  describe('turns.nextRunnable and recoverable', () => {
    it('offers the oldest queued turn only when nothing earlier is active', async () => {
      const { store } = await open();
      const id = conversationId(thread('1700.1'));
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
      expect((await store.turns.nextRunnable(id))?.id).toBe('turn-1');
      const first = claimed(await store.turns.claim('turn-1', leaseA));
      expect(await store.turns.nextRunnable(id)).toBeUndefined();
      await store.turns.complete(first.fence, done);
      expect((await store.turns.nextRunnable(id))?.id).toBe('turn-2');
      expect(await store.turns.nextRunnable('T:C:idle')).toBeUndefined();
    });

    it("lists a conversation's unfinished turns, oldest first, and none of another's", async () => {
      const { store } = await open();
      const id = conversationId(thread('1700.1'));
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
      await store.turns.enqueue(newTurn(thread('1700.3'), 'turn-3'));
      const first = claimed(await store.turns.claim('turn-1', leaseA));
      expect((await store.turns.open(id)).map((turn) => [turn.id, turn.status])).toEqual([
        ['turn-1', 'running'],
        ['turn-2', 'queued'],
      ]);
      await store.turns.complete(first.fence, done);
      expect((await store.turns.open(id)).map((turn) => turn.id)).toEqual(['turn-2']);
      expect(await store.turns.open('T:C:idle')).toEqual([]);
    });

    it('lists runnable queued turns, every running turn and decided awaiting turns', async () => {
      const { store, clock } = await open();
      const waiting = await awaitingTurn(store, clock.now());
      await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }));
      await store.turns.enqueue(newTurn(thread('1700.3'), 'turn-3'));
      await store.turns.enqueue(newTurn(thread('1700.3'), 'turn-4', { ts: '1700.4' }));
      await startTurn(store, { key: thread('1700.5'), turnId: 'turn-5' });

      let recoverable = await store.turns.recoverable();
      expect(recoverable.queued.map((t) => t.id)).toEqual(['turn-3']);
      expect(recoverable.running.map((t) => t.id)).toEqual(['turn-5']);
      expect(recoverable.decidedAwaiting).toEqual([]);
      await store.approvals.resolve({
        requestId: waiting.approval.requestId,
        decision: 'denied',
        decidedBy: 'U',
      });
      recoverable = await store.turns.recoverable();
      expect(recoverable.decidedAwaiting.map((t) => t.id)).toEqual(['turn-1']);
    });
  });
}
