import { describe, expect, it } from 'vitest';
import { AuditChainVerifier } from '../../audit/verify-audit-chain.js';
import { auditRowHash } from '../rules/audit-chain.js';
import { grantByDecision } from './contract-fixtures.js';
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
    it('chains every row to the one before it, whichever write inserted it', async () => {
      const { store, clock } = await open();
      await store.audit.record({ actor: 'U1', kind: 'tool.started', data: { b: 1, a: { d: [2], c: null } } });
      clock.advance(5);
      const { grant } = await grantByDecision(store, clock.now(), {
        scope: 'channel',
        scopeId: 'C1',
        createdBy: 'U2',
      });
      await store.grants.revoke(grant.id, 'U3');
      await store.audit.record({ actor: 'holdfast', kind: 'turn.failed', conversationId: 'c1' });

      const events = await store.audit.list();
      expect(events.map((e) => e.kind)).toEqual([
        'tool.started',
        'approval.requested',
        'approval.allowed',
        'grant.created',
        'grant.revoked',
        'turn.failed',
      ]);
      expect(events[0]!.previousHash).toBeNull();
      events.forEach((event, index) => {
        expect(event.hash).toBe(auditRowHash(event.previousHash, event));
        if (index > 0) expect(event.previousHash).toBe(events[index - 1]!.hash);
      });
      const verifier = new AuditChainVerifier();
      expect(events.map((event) => verifier.check(event))).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
    });

    it('pages by id and filters by time', async () => {
      const { store, clock } = await open();
      await store.audit.record({ actor: 'U1', kind: 'tool.started' });
      clock.advance(1_000);
      const later = clock.now();
      await store.audit.record({ actor: 'U2', kind: 'tool.started' });
      await store.audit.record({ actor: 'U3', kind: 'tool.started' });
      const [first, second] = await store.audit.list({ limit: 2 });
      expect((await store.audit.list({ afterId: second!.id })).map((e) => e.actor)).toEqual(['U3']);
      expect((await store.audit.list({ afterId: first!.id, limit: 1 })).map((e) => e.actor)).toEqual(['U2']);
      expect((await store.audit.list({ since: later })).map((e) => e.actor)).toEqual(['U2', 'U3']);
    });
  });
}
