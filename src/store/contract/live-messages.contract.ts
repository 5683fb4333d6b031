import { describe, expect, it } from 'vitest';
import type { StoreContractFactory } from './store-contract.js';

export function describeLiveMessagesContract(open: StoreContractFactory): void {
  describe('live messages', () => {
    it('remembers the message a turn streams into, replaces it, and forgets it', async () => {
      const { store } = await open();
      expect(await store.liveMessages.get('t1')).toBeUndefined();

      await store.liveMessages.record('t1', { channel: 'C1', ts: '1.000001', kind: 'stream', owner: 'p1' });
      await store.liveMessages.record('t2', { channel: 'C1', ts: '1.000002', kind: 'message', owner: 'p1' });
      expect(await store.liveMessages.get('t1')).toEqual({
        channel: 'C1',
        ts: '1.000001',
        kind: 'stream',
        owner: 'p1',
      });

      await store.liveMessages.record('t1', { channel: 'C1', ts: '1.000003', kind: 'message', owner: 'p2' });
      expect(await store.liveMessages.get('t1')).toEqual({
        channel: 'C1',
        ts: '1.000003',
        kind: 'message',
        owner: 'p2',
      });

      await store.liveMessages.forget('t1');
      await store.liveMessages.forget('t1');
      expect(await store.liveMessages.get('t1')).toBeUndefined();
      expect(await store.liveMessages.get('t2')).toMatchObject({ ts: '1.000002' });
    });

    it('keeps what it remembered across a restart, for the process that recovers the turn', async () => {
      const database = await open();
      await database.store.liveMessages.record('t1', {
        channel: 'D1',
        ts: '2.5',
        kind: 'stream',
        owner: 'p1',
      });

      const restarted = await database.restart();

      expect(await restarted.liveMessages.get('t1')).toEqual({
        channel: 'D1',
        ts: '2.5',
        kind: 'stream',
        owner: 'p1',
      });
    });
  });
}
