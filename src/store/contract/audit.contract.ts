import { describe, expect, it } from 'vitest';
import type { StoreContractFactory } from './store-contract.js';

export function describeAuditContract(open: StoreContractFactory): void {
  describe('audit', () => {
    it('records events and filters them by approval and conversation, oldest first', async () => {
      const { store, clock } = await open();
      const first = clock.now();
      await store.audit.record({
        actor: 'U1',
        kind: 'approval.refused',
        approvalId: 'apr_1',
        conversationId: 'c1',
      });
      clock.advance(1);
      await store.audit.record({
        actor: 'holdfast',
        kind: 'tool.started',
        conversationId: 'c1',
        data: { tool: 'x', nested: { list: [1, 'two', null] } },
      });
      await store.audit.record({ actor: 'holdfast', kind: 'turn.failed', conversationId: 'c2' });
      expect((await store.audit.list()).map((e) => e.kind)).toEqual([
        'approval.refused',
        'tool.started',
        'turn.failed',
      ]);
      expect((await store.audit.list({ approvalId: 'apr_1' })).map((e) => e.actor)).toEqual(['U1']);
      const inC1 = await store.audit.list({ conversationId: 'c1' });
      expect(inC1).toMatchObject([
        { kind: 'approval.refused', at: first, approvalId: 'apr_1', data: {} },
        {
          kind: 'tool.started',
          at: clock.now(),
          approvalId: null,
          data: { tool: 'x', nested: { list: [1, 'two', null] } },
        },
      ]);
      expect(inC1[0]!.id).toBeLessThan(inC1[1]!.id);
      expect(await store.audit.list({ approvalId: 'apr_1', conversationId: 'c2' })).toEqual([]);
    });

    it('returns at most `limit` events, the oldest', async () => {
      const { store } = await open();
      for (const actor of ['U1', 'U2', 'U3']) await store.audit.record({ actor, kind: 'tool.started' });
      expect((await store.audit.list({ limit: 2 })).map((e) => e.actor)).toEqual(['U1', 'U2']);
    });
  });
}
