import { describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../outbox-message.js';
import type { ClaimToken, Lease, Store } from '../store.js';
import {
  awaitingTurn,
  completeOne,
  enqueueClaimed,
  leaseA,
  leaseB,
  noticeEntry,
  outboxRow,
  startTurn,
  suspendWithRequests,
} from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

const conversation = 'T0HOLDFAST:C0OPS:1700.1';
const part = (ts: string) => ({ channel: 'C0OPS', ts });

/**
 * A row proc-a claimed, then lost after its claim lapsed to `by` (another process, or proc-a again after a
 * restart under the same name): proc-a's first token is stale.
 */
async function takenOver(store: Store, advance: (ms: number) => void, by: Lease = leaseB) {
  const [row] = await enqueueClaimed(store, [noticeEntry('a', conversation)], leaseA);
  advance(leaseA.durationMs + 1);
  const current = (await store.outbox.claim(row!.id, by)) as OutboxEntry;
  return { row: current, stale: { owner: 'proc-a', token: 1 }, fresh: { owner: by.owner, token: 2 } };
}

const staleWrites: ReadonlyArray<{
  readonly name: string;
  readonly write: (store: Store, id: number, stale: ClaimToken) => Promise<boolean>;
}> = [
  {
    name: 'recordProgress',
    write: (store, id, stale) => store.outbox.recordProgress(id, stale, { sent: [part('1.1')] }, 30_000),
  },
  {
    name: 'complete',
    write: (store, id, stale) => completeOne(store, id, stale, { sent: [part('1.1')] }),
  },
  {
    name: 'retryLater',
    write: (store, id, stale) => store.outbox.retryLater(id, stale, { nextAttemptAt: 0, error: 'x' }),
  },
  {
    name: 'giveUp',
    write: (store, id, stale) => {
      return store.outbox.giveUp(id, stale, {
        error: 'not_in_channel',
        notify: [noticeEntry('notify', conversation)],
      });
    },
  },
];

export function describeOutboxOutcomesContract(open: StoreContractFactory): void {
  describe('outbox.recordProgress', () => {
    it('records the parts sent and extends the claim', async () => {
      const { store, clock, inspect } = await open();
      const [row] = await enqueueClaimed(store, [noticeEntry('a', conversation)], leaseA);
      clock.advance(10_000);
      const progress = { parts: ['one', 'two', 'three'], sent: [part('1.1')] };
      expect(
        await store.outbox.recordProgress(row!.id, { owner: 'proc-a', token: 1 }, progress, 30_000),
      ).toBe(true);
      expect(await outboxRow(inspect, row!.id)).toMatchObject({
        status: 'pending',
        progress,
        claim: { owner: 'proc-a', token: 1, expiresAt: clock.now() + 30_000 },
      });
    });
  });

  describe('outbox.complete', () => {
    it('marks the row sent with its parts and ends the claim', async () => {
      const { store, inspect } = await open();
      const [row] = await enqueueClaimed(store, [noticeEntry('a', conversation)], leaseA);
      const progress = { parts: ['one', 'two'], sent: [part('1.1'), part('1.2')] };
      expect(await completeOne(store, row!.id, { owner: 'proc-a', token: 1 }, progress)).toBe(true);
      expect(await outboxRow(inspect, row!.id)).toMatchObject({
        status: 'sent',
        progress,
        claim: null,
        inDoubt: false,
      });
      expect(await store.outbox.nextPending(conversation)).toBeUndefined();
      expect(await completeOne(store, row!.id, { owner: 'proc-a', token: 1 }, progress)).toBe(false);
    });

    it('makes the messages of a delivered approval card cards of its request', async () => {
      const { store, clock } = await open();
      const { approval, conversationId } = await awaitingTurn(store, clock.now());
      const [row] = await enqueueClaimed(
        store,
        [
          {
            key: `card:${approval.requestId}`,
            conversationId,
            turnId: 'turn-1',
            requestId: approval.requestId,
            message: { type: 'approval-card', requestId: approval.requestId },
          },
        ],
        leaseA,
      );
      await completeOne(store, row!.id, { owner: 'proc-a', token: 1 }, { sent: [part('1700.5')] });
      expect((await store.approvals.get(approval.requestId))?.cards).toEqual([part('1700.5')]);
    });

    it('makes the message of a delivered plan a card of every request it lists', async () => {
      const { store, clock } = await open();
      const started = await startTurn(store);
      const requests = await suspendWithRequests(store, started, [
        { toolCallId: 'call_1', createdAt: clock.now() },
        { toolCallId: 'call_2', createdAt: clock.now() },
      ]);
      const [first] = requests;
      if (!first || requests.length !== 2) throw new Error('the suspension stored no requests');
      const requestIds = requests.map((request) => request.requestId);
      const [row] = await enqueueClaimed(
        store,
        [
          {
            key: `plan:${first.requestId}`,
            conversationId: started.conversationId,
            turnId: started.turn.turnId,
            requestId: first.requestId,
            message: { type: 'approval-plan', requestIds },
          },
        ],
        leaseA,
      );
      await completeOne(store, row!.id, { owner: 'proc-a', token: 1 }, { sent: [part('1700.5')] });
      for (const requestId of requestIds) {
        expect((await store.approvals.get(requestId))?.cards).toEqual([part('1700.5')]);
      }
    });

    it("makes every copy in approvers' direct messages a card of its request too", async () => {
      const { store, clock } = await open();
      const { approval, conversationId } = await awaitingTurn(store, clock.now());
      const [row] = await enqueueClaimed(
        store,
        [
          {
            key: `copies:${approval.requestId}:reminder`,
            conversationId,
            turnId: 'turn-1',
            requestId: approval.requestId,
            message: { type: 'approver-copy', requestId: approval.requestId, occasion: 'reminder' },
          },
        ],
        leaseA,
      );
      const copies = [
        { channel: 'D0BOB', ts: '1700.7' },
        { channel: 'D0CAROL', ts: '1700.8' },
      ];
      await completeOne(store, row!.id, { owner: 'proc-a', token: 1 }, { sent: copies });
      expect((await store.approvals.get(approval.requestId))?.cards).toEqual(copies);
    });
  });

  describe('outbox.retryLater', () => {
    it('hands the row back, not in doubt, due again at the given time with the error kept', async () => {
      const { store, clock, inspect } = await open();
      const { row, fresh } = await takenOver(store, clock.advance);
      expect(row.inDoubt).toBe(true);
      const nextAttemptAt = clock.now() + 5_000;
      expect(await store.outbox.retryLater(row.id, fresh, { nextAttemptAt, error: 'ratelimited' })).toBe(
        true,
      );
      expect(await outboxRow(inspect, row.id)).toMatchObject({
        status: 'pending',
        claim: null,
        inDoubt: false,
        nextAttemptAt,
        lastError: 'ratelimited',
        attempts: 2,
      });
      expect(await store.outbox.duePending(10)).toEqual([]);
    });
  });

  describe('outbox.giveUp', () => {
    it('fails the row, audits why and writes the notice to a person in the same commit', async () => {
      const { store, clock, inspect } = await open();
      const { approval, conversationId } = await awaitingTurn(store, clock.now());
      const [row] = await enqueueClaimed(
        store,
        [
          {
            key: `card:${approval.requestId}`,
            conversationId,
            turnId: 'turn-1',
            requestId: approval.requestId,
            message: { type: 'approval-card', requestId: approval.requestId },
          },
        ],
        leaseA,
      );
      const notice = {
        key: `undeliverable:card:${approval.requestId}`,
        conversationId,
        turnId: 'turn-1',
        message: {
          type: 'direct-message' as const,
          userId: 'UREQUESTER',
          notice: {
            type: 'undeliverable' as const,
            what: 'approval-card' as const,
            channelId: 'C0OPS',
            reason: 'not_in_channel',
          },
        },
      };
      const given = await store.outbox.giveUp(
        row!.id,
        { owner: 'proc-a', token: 1 },
        { error: 'not_in_channel', notify: [notice] },
      );
      expect(given).toBe(true);
      expect(await outboxRow(inspect, row!.id)).toMatchObject({
        status: 'failed',
        lastError: 'not_in_channel',
        claim: null,
      });
      expect(await store.audit.list({ approvalId: approval.requestId })).toMatchObject([
        { kind: 'approval.requested' },
        {
          kind: 'delivery.failed',
          actor: 'holdfast',
          conversationId,
          data: { key: `card:${approval.requestId}`, error: 'not_in_channel', turnId: 'turn-1' },
        },
      ]);
      expect((await inspect.outbox()).at(-1)).toMatchObject({
        key: notice.key,
        message: notice.message,
        status: 'pending',
        claim: null,
      });
      expect((await store.outbox.nextPending(conversationId))?.key).toBe(notice.key);
    });
  });

  describe.each([
    { name: 'another process', by: leaseB },
    { name: 'the same owner again', by: leaseA },
  ])('outbox writes with a token lost to $name', ({ by }) => {
    it.each(staleWrites)(
      'refuse $name and change nothing: no row change, audit row or notice',
      async ({ write }) => {
        const { store, clock, inspect } = await open();
        const { row, stale } = await takenOver(store, clock.advance, by);
        expect(await write(store, row.id, stale)).toBe(false);
        expect(await inspect.outbox()).toEqual([row]);
        expect(await store.audit.list()).toEqual([]);
      },
    );
  });

  describe('outbox.complete of one row', () => {
    it('records a delivery under its claim, and refuses the same token under another owner', async () => {
      const { store, inspect } = await open();
      const [row] = await enqueueClaimed(store, [noticeEntry('soon', 'T:C:1')], leaseA);
      const progress = { sent: [{ channel: 'C0OPS', ts: '1700.9' }] };

      expect(await completeOne(store, row!.id, { owner: 'proc-a', token: 1 }, progress)).toBe(true);
      expect(await outboxRow(inspect, row!.id)).toMatchObject({ status: 'sent', progress, claim: null });

      const [other] = await enqueueClaimed(store, [noticeEntry('stale', 'T:C:1')], leaseA);
      expect(await completeOne(store, other!.id, { owner: 'proc-b', token: 1 }, progress)).toBe(false);
      expect(await outboxRow(inspect, other!.id)).toMatchObject({ status: 'pending' });
    });
  });
}
