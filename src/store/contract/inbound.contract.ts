import { describe, expect, it } from 'vitest';
import { newTurn, thread } from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

const message = (key: string, lane = 'T1:C1:1.1') => ({ key, lane, payload: `{"key":"${key}"}` });

export function describeInboundContract(open: StoreContractFactory): void {
  describe('inbound messages', () => {
    it('keeps a message once under its key until it is settled', async () => {
      const { store, clock } = await open();
      const keptAt = clock.now();

      expect(await store.inbound.keep(message('m1'))).toBe(true);
      // A redelivery: the first copy stands, the second changes nothing.
      expect(await store.inbound.keep({ ...message('m1'), payload: '{"other":true}' })).toBe(false);
      clock.advance(1);
      expect(await store.inbound.unsettled({ receivedBefore: clock.now(), limit: 10 })).toEqual([
        { ...message('m1'), receivedAt: keptAt },
      ]);

      await store.inbound.settle('m1');
      await store.inbound.settle('m1');
      expect(await store.inbound.unsettled({ receivedBefore: clock.now(), limit: 10 })).toEqual([]);
      // Settled is gone: a later delivery of the same key is kept again (the turn's trigger key dedupes it).
      expect(await store.inbound.keep(message('m1'))).toBe(true);
    });

    it('hands out what was kept before a moment, oldest first, up to a limit', async () => {
      const { store, clock } = await open();
      await store.inbound.keep(message('m1', 'lane-a'));
      clock.advance(10);
      await store.inbound.keep(message('m2', 'lane-b'));
      await store.inbound.keep(message('m3', 'lane-a'));
      const cutoff = clock.now();
      clock.advance(10);
      await store.inbound.keep(message('m4', 'lane-a'));

      const before = await store.inbound.unsettled({ receivedBefore: cutoff, limit: 10 });
      expect(before.map((kept) => kept.key)).toEqual(['m1']);
      const all = await store.inbound.unsettled({ receivedBefore: clock.now() + 1, limit: 10 });
      expect(all.map((kept) => [kept.key, kept.lane])).toEqual([
        ['m1', 'lane-a'],
        ['m2', 'lane-b'],
        ['m3', 'lane-a'],
        ['m4', 'lane-a'],
      ]);
      const firstTwo = await store.inbound.unsettled({ receivedBefore: clock.now() + 1, limit: 2 });
      expect(firstTwo.map((kept) => kept.key)).toEqual(['m1', 'm2']);
    });

    it('settles a kept message in the commit that makes it a turn, a duplicate or a refusal', async () => {
      const { store, clock } = await open();
      for (const key of ['made', 'again', 'refused']) await store.inbound.keep(message(key));
      const turn = { ...newTurn(thread('1700.1'), 'turn-1', { text: 'hello' }), inboundKey: 'made' };

      expect(await store.turns.enqueue(turn)).toMatchObject({ type: 'enqueued' });
      expect(await store.turns.enqueue({ ...turn, turnId: 'turn-2', inboundKey: 'again' })).toMatchObject({
        type: 'duplicate',
      });
      const busy = {
        ...newTurn(thread('1700.1'), 'turn-3', { text: 'more' }),
        triggerKey: 'C0OPS:1700.2',
        inboundKey: 'refused',
      };
      expect(await store.turns.enqueue(busy, undefined, { perThread: 1, perUser: 10 })).toMatchObject({
        type: 'refused',
        reason: 'thread-busy',
      });

      expect(await store.inbound.unsettled({ receivedBefore: clock.now() + 1, limit: 10 })).toEqual([]);
      expect((await store.turns.get('turn-1'))?.inputText).toBe('hello');
      expect(await store.turns.get('turn-3')).toBeUndefined();
    });

    it('keeps what was not settled across a restart, for the next process', async () => {
      const database = await open();
      await database.store.inbound.keep(message('m1'));
      await database.store.inbound.keep(message('m2'));
      await database.store.inbound.settle('m1');

      const restarted = await database.restart();

      expect(
        (await restarted.inbound.unsettled({ receivedBefore: database.clock.now() + 1, limit: 10 })).map(
          (kept) => kept.key,
        ),
      ).toEqual(['m2']);
    });
  });
}
