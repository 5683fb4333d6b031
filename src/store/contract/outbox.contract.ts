import { describe, expect, it } from 'vitest';
import {
  answerEntry,
  completeOne,
  enqueueClaimed,
  leaseA,
  leaseB,
  noticeEntry,
  outboxRow,
  startTurn,
} from './contract-fixtures.js';
import { describeOutboxOutcomesContract } from './outbox-outcomes.contract.js';
import type { StoreContractFactory } from './store-contract.js';

const conversation = 'T0HOLDFAST:C0OPS:1700.1';
const elsewhere = 'T0HOLDFAST:C0OPS:1800.1';
const byNumber = (a: number, b: number) => a - b;

export function describeOutboxContract(open: StoreContractFactory): void {
  describe('outbox.enqueue', () => {
    it('writes pending, unclaimed rows due now and returns them', async () => {
      const { store, clock, inspect } = await open();
      const entry = answerEntry('turn-1', conversation);
      const [row] = await store.outbox.enqueue([entry]);
      expect(row).toEqual({
        id: expect.any(Number),
        key: entry.key,
        conversationId: conversation,
        turnId: 'turn-1',
        requestId: null,
        message: entry.message,
        status: 'pending',
        attempts: 0,
        nextAttemptAt: clock.now(),
        claim: null,
        inDoubt: false,
        progress: { sent: [] },
        lastError: null,
        createdAt: clock.now(),
      });
      expect(await outboxRow(inspect, row!.id)).toEqual(row);
    });

    it('writes a key once: a second write of it, alone or with a state change, is no row', async () => {
      const { store, inspect } = await open();
      const started = await startTurn(store);
      const entry = answerEntry('turn-1', started.conversationId);
      expect(await store.outbox.enqueue([entry])).toHaveLength(1);
      expect(await store.outbox.enqueue([entry, noticeEntry('other', started.conversationId)])).toMatchObject(
        [{ key: 'notice:other' }],
      );
      await store.turns.complete(
        started.fence,
        { answer: 'x', kv: { values: {}, children: {} } },
        {
          outbox: [{ ...entry, message: { type: 'answer', turnId: 'turn-1', text: 'changed' } }],
        },
      );
      const rows = await inspect.outbox();
      expect(rows.map((row) => row.key)).toEqual([entry.key, 'notice:other']);
      expect(rows[0]).toMatchObject({ message: entry.message, claim: null });
    });

    it("leaves a state change's rows for the first claim: one process sends each, once, in order", async () => {
      const { store, clock, inspect } = await open();
      const started = await startTurn(store);
      const answer = answerEntry('turn-1', started.conversationId);
      const notice = noticeEntry('after', started.conversationId);
      await store.turns.complete(
        started.fence,
        { answer: 'x', kv: { values: {}, children: {} } },
        { outbox: [answer, notice] },
      );
      const [first, second] = await inspect.outbox();
      expect(first).toMatchObject({ key: answer.key, claim: null, attempts: 0, inDoubt: false });
      expect((await store.outbox.nextPending(started.conversationId))?.id).toBe(first!.id);
      const claimed = await store.outbox.claim(first!.id, leaseA);
      expect(claimed).toMatchObject({
        attempts: 1,
        claim: { owner: 'proc-a', token: 1, expiresAt: clock.now() + leaseA.durationMs },
      });
      // Another process finds it held and cannot send it too.
      expect(await store.outbox.claim(first!.id, leaseB)).toBeUndefined();
      const sent = { sent: [{ channel: 'C0OPS', ts: '1700.9' }] };
      expect(await completeOne(store, first!.id, { owner: 'proc-a', token: 1 }, sent)).toBe(true);
      expect(await completeOne(store, first!.id, { owner: 'proc-a', token: 1 }, sent)).toBe(false);
      expect(await store.outbox.claim(first!.id, leaseB)).toBeUndefined();
      expect((await store.outbox.nextPending(started.conversationId))?.id).toBe(second!.id);
    });
  });

  describe('outbox.nextPending and duePending', () => {
    it('hands out the pending rows of a conversation one at a time, in the order written', async () => {
      const { store } = await open();
      const [first, second] = await store.outbox.enqueue([
        noticeEntry('a', conversation),
        noticeEntry('b', conversation),
      ]);
      await store.outbox.enqueue([noticeEntry('c', elsewhere)]);
      expect((await store.outbox.nextPending(conversation))?.id).toBe(first!.id);
      const held = await store.outbox.claim(first!.id, leaseA);
      // A claimed row is still the next one: rows of a thread never overtake each other.
      expect((await store.outbox.nextPending(conversation))?.id).toBe(first!.id);
      await completeOne(store, first!.id, { owner: 'proc-a', token: held!.claim!.token }, { sent: [] });
      expect((await store.outbox.nextPending(conversation))?.id).toBe(second!.id);
      expect((await store.outbox.nextPending(elsewhere))?.key).toBe('notice:c');
      expect(await store.outbox.nextPending('T:C:none')).toBeUndefined();
    });

    it('offers the sweep only rows that are due and not held by a live claim', async () => {
      const { store, clock } = await open();
      const [free, live, lapsing, later, done] = await store.outbox.enqueue(
        ['free', 'live', 'lapsing', 'later', 'done'].map((name) => noticeEntry(name, conversation)),
      );
      await store.outbox.claim(live!.id, { owner: 'proc-a', durationMs: 120_000 });
      await store.outbox.claim(lapsing!.id, { owner: 'proc-a', durationMs: 1_000 });
      const laterClaim = await store.outbox.claim(later!.id, leaseA);
      await store.outbox.retryLater(
        later!.id,
        { owner: 'proc-a', token: laterClaim!.claim!.token },
        {
          nextAttemptAt: clock.now() + 60_000,
          error: 'ratelimited',
        },
      );
      const doneClaim = await store.outbox.claim(done!.id, leaseA);
      await completeOne(store, done!.id, { owner: 'proc-a', token: doneClaim!.claim!.token }, { sent: [] });

      const due = async (limit = 10) =>
        (await store.outbox.duePending(limit)).map((row) => row.id).sort(byNumber);
      expect(await due()).toEqual([free!.id]);
      clock.advance(1_001);
      expect(await due()).toEqual([free!.id, lapsing!.id].sort(byNumber));
      clock.advance(60_000);
      expect(await due()).toEqual([free!.id, lapsing!.id, later!.id].sort(byNumber));
      expect(await due(1)).toHaveLength(1);
    });
  });

  describe('outbox.claim', () => {
    it('claims a free row: owner, a new token, an attempt counted, not in doubt', async () => {
      const { store, clock, inspect } = await open();
      const [row] = await store.outbox.enqueue([noticeEntry('a', conversation)]);
      const held = await store.outbox.claim(row!.id, leaseB);
      expect(held).toMatchObject({
        id: row!.id,
        attempts: 1,
        inDoubt: false,
        claim: { owner: 'proc-b', token: 1, expiresAt: clock.now() + leaseB.durationMs },
      });
      expect(await outboxRow(inspect, row!.id)).toEqual(held);
    });

    it('refuses a live claim unless taking over from its owner, and marks a takeover in doubt', async () => {
      const { store, inspect } = await open();
      const [row] = await enqueueClaimed(store, [noticeEntry('a', conversation)], leaseA);
      expect(await store.outbox.claim(row!.id, leaseB)).toBeUndefined();
      expect(await store.outbox.claim(row!.id, leaseB, { takeOverFrom: 'proc-c' })).toBeUndefined();
      expect((await outboxRow(inspect, row!.id))?.claim).toMatchObject({ owner: 'proc-a', token: 1 });
      expect(await store.outbox.claim(row!.id, leaseB, { takeOverFrom: 'proc-a' })).toMatchObject({
        claim: { owner: 'proc-b', token: 2 },
        attempts: 2,
        inDoubt: true,
      });
    });

    it('takes a lapsed claim and marks the row in doubt: the last attempt may have posted', async () => {
      const { store, clock } = await open();
      const [row] = await store.outbox.enqueue([noticeEntry('a', conversation)]);
      await store.outbox.claim(row!.id, leaseA);
      clock.advance(leaseA.durationMs);
      expect(await store.outbox.claim(row!.id, leaseB)).toBeUndefined();
      clock.advance(1);
      expect(await store.outbox.claim(row!.id, leaseB)).toMatchObject({
        claim: { owner: 'proc-b', token: 2 },
        inDoubt: true,
      });
    });

    it('claims a row handed back with retryLater without doubt', async () => {
      const { store } = await open();
      const [row] = await enqueueClaimed(store, [noticeEntry('a', conversation)], leaseA);
      await store.outbox.retryLater(row!.id, { owner: 'proc-a', token: 1 }, { nextAttemptAt: 0, error: 'e' });
      expect(await store.outbox.claim(row!.id, leaseB)).toMatchObject({
        claim: { owner: 'proc-b', token: 2 },
        inDoubt: false,
      });
    });

    it('does not count an attempt on which Slack only asked to wait', async () => {
      const { store, inspect } = await open();
      const [row] = await enqueueClaimed(store, [noticeEntry('a', conversation)], leaseA);
      expect(row?.attempts).toBe(1);
      await store.outbox.retryLater(
        row!.id,
        { owner: 'proc-a', token: 1 },
        { nextAttemptAt: 0, error: 'ratelimited', waited: true },
      );
      expect((await outboxRow(inspect, row!.id))?.attempts).toBe(0);
      const again = await store.outbox.claim(row!.id, leaseA);
      expect(again?.attempts).toBe(1);
      await store.outbox.retryLater(
        row!.id,
        { owner: 'proc-a', token: again!.claim!.token },
        { nextAttemptAt: 0, error: 'http_503' },
      );
      expect((await outboxRow(inspect, row!.id))?.attempts).toBe(1);
    });

    it('refuses rows that are finished or unknown', async () => {
      const { store } = await open();
      const [row] = await enqueueClaimed(store, [noticeEntry('a', conversation)], leaseA);
      await completeOne(store, row!.id, { owner: 'proc-a', token: 1 }, { sent: [] });
      expect(await store.outbox.claim(row!.id, leaseB, { takeOverFrom: 'proc-a' })).toBeUndefined();
      expect(await store.outbox.claim(row!.id + 1_000, leaseB)).toBeUndefined();
    });
  });

  describeOutboxOutcomesContract(open);
}
