import { describe, expect, it } from 'vitest';
import type { StoreContractFactory } from './store-contract.js';

const scopes = { conversationId: 'T1:C1:1700.1', channelId: 'C1' };
const conversationGrant = {
  scope: 'conversation' as const,
  scopeId: scopes.conversationId,
  toolName: 'shell',
  createdBy: 'U1',
};

export function describeGrantsContract(open: StoreContractFactory): void {
  describe('grants', () => {
    it('finds a conversation grant only in that conversation', async () => {
      const { store, clock } = await open();
      const grant = await store.grants.create({ ...conversationGrant, sourceRequestId: 'apr_1' });
      expect(grant).toMatchObject({
        scope: 'conversation',
        scopeId: scopes.conversationId,
        toolName: 'shell',
        createdBy: 'U1',
        createdAt: clock.now(),
        sourceRequestId: 'apr_1',
      });
      expect(await store.grants.find('shell', scopes)).toEqual(grant);
      expect(
        await store.grants.find('shell', { conversationId: 'T1:C1:1700.2', channelId: 'C1' }),
      ).toBeUndefined();
      expect(await store.grants.find('deploy', scopes)).toBeUndefined();
    });

    it('finds a channel grant in every thread of the channel', async () => {
      const { store } = await open();
      const grant = await store.grants.create({
        scope: 'channel',
        scopeId: 'C1',
        toolName: 'http_get',
        createdBy: 'UADMIN',
      });
      expect(grant.sourceRequestId).toBeNull();
      expect(await store.grants.find('http_get', { conversationId: 'T1:C1:9', channelId: 'C1' })).toEqual(
        grant,
      );
      expect(
        await store.grants.find('http_get', { conversationId: 'T1:C2:9', channelId: 'C2' }),
      ).toBeUndefined();
    });

    it('lists the active grants of a conversation and of a channel', async () => {
      const { store } = await open();
      const inThread = await store.grants.create(conversationGrant);
      const inChannel = await store.grants.create({ ...conversationGrant, scope: 'channel', scopeId: 'C1' });
      await store.grants.create({ ...conversationGrant, scopeId: 'T1:C1:other' });
      expect(await store.grants.list(scopes)).toEqual([inThread, inChannel]);
      expect(await store.grants.list({ channelId: 'C1' })).toEqual([inChannel]);
      expect(await store.grants.list({ conversationId: scopes.conversationId })).toEqual([inThread]);
      expect(await store.grants.list({})).toEqual([]);
    });

    it('keeps one active grant per scope and tool, and audits only the first', async () => {
      const { store } = await open();
      const first = await store.grants.create(conversationGrant);
      const second = await store.grants.create({ ...conversationGrant, createdBy: 'U2' });
      expect(second).toEqual(first);
      expect(await store.grants.list(scopes)).toHaveLength(1);
      const created = (await store.audit.list()).filter((e) => e.kind === 'grant.created');
      expect(created).toMatchObject([
        {
          actor: 'U1',
          conversationId: scopes.conversationId,
          data: { scope: 'conversation', scopeId: scopes.conversationId, tool: 'shell' },
        },
      ]);
    });

    it('revokes once, audits it, and lets a new grant be made afterwards', async () => {
      const { store } = await open();
      const grant = await store.grants.create(conversationGrant);
      expect(await store.grants.revoke(grant.id, 'UADMIN')).toBe(true);
      expect(await store.grants.revoke(grant.id, 'UADMIN')).toBe(false);
      expect(await store.grants.revoke(grant.id + 1_000, 'UADMIN')).toBe(false);
      expect(await store.grants.find('shell', scopes)).toBeUndefined();
      expect(await store.grants.list(scopes)).toHaveLength(0);
      const revoked = (await store.audit.list()).filter((e) => e.kind === 'grant.revoked');
      expect(revoked).toMatchObject([{ actor: 'UADMIN', conversationId: scopes.conversationId }]);
      const again = await store.grants.create(conversationGrant);
      expect(again.id).not.toBe(grant.id);
      expect(await store.grants.find('shell', scopes)).toEqual(again);
    });

    it('audits a channel grant and its revocation without a conversation', async () => {
      const { store } = await open();
      const grant = await store.grants.create({ ...conversationGrant, scope: 'channel', scopeId: 'C1' });
      await store.grants.revoke(grant.id, 'UADMIN');
      expect(await store.audit.list()).toMatchObject([
        { kind: 'grant.created', conversationId: null, data: { scope: 'channel', scopeId: 'C1' } },
        { kind: 'grant.revoked', conversationId: null, actor: 'UADMIN' },
      ]);
    });
  });
}
