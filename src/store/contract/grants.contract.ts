import { describe, expect, it } from 'vitest';
import { wholeToolGrant } from '../../../test/support/store-reads.js';
import type { Store } from '../store.js';
import { type GrantDecision, grantByDecision } from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

const scopes = { conversationId: 'T1:C1:1700.1', channelId: 'C1' };
const conversationGrant = {
  scope: 'conversation' as const,
  scopeId: scopes.conversationId,
  toolName: 'shell',
  createdBy: 'U1',
};

/** A grant as production makes one: a request decided "always" with the grant's fields. */
async function granted(store: Store, clock: { now(): number }, decision: GrantDecision) {
  return (await grantByDecision(store, clock.now(), decision)).grant;
}

export function describeGrantsContract(open: StoreContractFactory): void {
  describe('grants', () => {
    it('finds a conversation grant only in that conversation', async () => {
      const { store, clock } = await open();
      const { grant, request } = await grantByDecision(store, clock.now(), conversationGrant);
      expect(grant).toMatchObject({
        scope: 'conversation',
        scopeId: scopes.conversationId,
        toolName: 'shell',
        createdBy: 'U1',
        createdAt: clock.now(),
        sourceRequestId: request.requestId,
      });
      expect(await wholeToolGrant(store, 'shell', scopes)).toEqual(grant);
      expect(
        await wholeToolGrant(store, 'shell', { conversationId: 'T1:C1:1700.2', channelId: 'C1' }),
      ).toBeUndefined();
      expect(await wholeToolGrant(store, 'deploy', scopes)).toBeUndefined();
    });

    it('finds a channel grant in every thread of the channel', async () => {
      const { store, clock } = await open();
      const { grant, request } = await grantByDecision(store, clock.now(), {
        scope: 'channel',
        scopeId: 'C1',
        toolName: 'http_get',
        createdBy: 'UADMIN',
      });
      expect(grant.sourceRequestId).toBe(request.requestId);
      expect(await wholeToolGrant(store, 'http_get', { conversationId: 'T1:C1:9', channelId: 'C1' })).toEqual(
        grant,
      );
      expect(
        await wholeToolGrant(store, 'http_get', { conversationId: 'T1:C2:9', channelId: 'C2' }),
      ).toBeUndefined();
    });

    it('lists the active grants of a conversation and of a channel', async () => {
      const { store, clock } = await open();
      const inThread = await granted(store, clock, conversationGrant);
      const inChannel = await granted(store, clock, {
        ...conversationGrant,
        scope: 'channel',
        scopeId: 'C1',
      });
      await granted(store, clock, { ...conversationGrant, scopeId: 'T1:C1:other' });
      expect(await store.grants.list(scopes)).toEqual([inThread, inChannel]);
      expect(await store.grants.list({ channelId: 'C1' })).toEqual([inChannel]);
      expect(await store.grants.list({ conversationId: scopes.conversationId })).toEqual([inThread]);
      expect(await store.grants.list({})).toEqual([]);
    });

    it('keeps one active grant per scope and tool, and audits only the first', async () => {
      const { store, clock } = await open();
      const first = await granted(store, clock, conversationGrant);
      const second = await granted(store, clock, { ...conversationGrant, createdBy: 'U2' });
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
      const { store, clock } = await open();
      const grant = await granted(store, clock, conversationGrant);
      expect(await store.grants.revoke(grant.id, 'UADMIN')).toBe(true);
      expect(await store.grants.revoke(grant.id, 'UADMIN')).toBe(false);
      expect(await store.grants.revoke(grant.id + 1_000, 'UADMIN')).toBe(false);
      expect(await wholeToolGrant(store, 'shell', scopes)).toBeUndefined();
      expect(await store.grants.list(scopes)).toHaveLength(0);
      const revoked = (await store.audit.list()).filter((e) => e.kind === 'grant.revoked');
      expect(revoked).toMatchObject([{ actor: 'UADMIN', conversationId: scopes.conversationId }]);
      const again = await granted(store, clock, conversationGrant);
      expect(again.id).not.toBe(grant.id);
      expect(await wholeToolGrant(store, 'shell', scopes)).toEqual(again);
    });

    it('audits a channel grant and its revocation without a conversation', async () => {
      const { store, clock } = await open();
      const grant = await granted(store, clock, { ...conversationGrant, scope: 'channel', scopeId: 'C1' });
      await store.grants.revoke(grant.id, 'UADMIN');
      const grantEvents = (await store.audit.list()).filter((e) => e.kind.startsWith('grant.'));
      expect(grantEvents).toMatchObject([
        { kind: 'grant.created', conversationId: null, data: { scope: 'channel', scopeId: 'C1' } },
        { kind: 'grant.revoked', conversationId: null, actor: 'UADMIN' },
      ]);
    });

    it('lists usable grants of a pattern beside the whole-tool one; find sees only the whole-tool one', async () => {
      const { store, clock } = await open();
      const pattern = await granted(store, clock, {
        ...conversationGrant,
        match: { command: 'kubectl get *' },
      });
      expect(await wholeToolGrant(store, 'shell', scopes)).toBeUndefined();
      const whole = await granted(store, clock, conversationGrant);
      expect(pattern.match).toEqual({ command: 'kubectl get *' });
      expect(whole.match).toBeNull();
      expect(await store.grants.usable('shell', scopes)).toEqual([pattern, whole]);
      expect(await wholeToolGrant(store, 'shell', scopes)).toEqual(whole);
      expect(await store.grants.get(pattern.id)).toEqual(pattern);
      expect(await store.grants.get(pattern.id + 1_000)).toBeUndefined();
    });

    it('stops a grant at its expiry', async () => {
      const { store, clock } = await open();
      const grant = await granted(store, clock, { ...conversationGrant, expiresAt: clock.now() + 60_000 });
      expect(await store.grants.usable('shell', scopes)).toEqual([grant]);
      clock.advance(60_000);
      expect(await store.grants.usable('shell', scopes)).toEqual([]);
      expect(await wholeToolGrant(store, 'shell', scopes)).toBeUndefined();
      expect(await store.grants.list(scopes)).toEqual([]);
      const use = { conversationId: scopes.conversationId, turnId: 't1', toolCallId: 'call_1' };
      expect(await store.grants.use(grant.id, use)).toBeUndefined();
    });

    it('counts uses down, audits each with its call and notice, and refuses once used up', async () => {
      const { store, clock, inspect } = await open();
      const grant = await granted(store, clock, { ...conversationGrant, maxUses: 2 });
      const use = (toolCallId: string) =>
        store.grants.use(
          grant.id,
          { conversationId: scopes.conversationId, turnId: 't1', toolCallId },
          {
            outbox: [
              {
                key: `grant-used:${toolCallId}`,
                conversationId: scopes.conversationId,
                message: { type: 'answer', turnId: 't1', text: `ran ${toolCallId}` },
              },
            ],
          },
        );
      // The decision that made the grant wrote its own rows (its card's update); the uses write after them.
      const before = (await inspect.outbox()).length;
      expect(await use('call_1')).toMatchObject({ id: grant.id, usesLeft: 1 });
      expect(await use('call_2')).toMatchObject({ id: grant.id, usesLeft: 0 });
      expect(await use('call_3')).toBeUndefined();
      expect(await store.grants.usable('shell', scopes)).toEqual([]);
      const used = (await store.audit.list()).filter((event) => event.kind === 'grant.used');
      expect(used).toMatchObject([
        {
          actor: 'U1',
          conversationId: scopes.conversationId,
          data: { grantId: grant.id, toolCallId: 'call_1' },
        },
        {
          actor: 'U1',
          conversationId: scopes.conversationId,
          data: { grantId: grant.id, toolCallId: 'call_2' },
        },
      ]);
      expect((await inspect.outbox()).slice(before).map((entry) => entry.key)).toEqual([
        'grant-used:call_1',
        'grant-used:call_2',
      ]);
    });

    it('lets a revoked grant through no more', async () => {
      const { store, clock } = await open();
      const grant = await granted(store, clock, { ...conversationGrant, match: { command: 'uptime' } });
      await store.grants.revoke(grant.id, 'UADMIN');
      const use = { conversationId: scopes.conversationId, turnId: 't1', toolCallId: 'call_1' };
      expect(await store.grants.use(grant.id, use)).toBeUndefined();
      expect(await store.grants.usable('shell', scopes)).toEqual([]);
    });

    it('lists by who made them, and every grant of a channel and its threads', async () => {
      const { store, clock } = await open();
      const inThread = await granted(store, clock, conversationGrant);
      const inChannel = await granted(store, clock, {
        ...conversationGrant,
        scope: 'channel',
        scopeId: 'C1',
        createdBy: 'U2',
      });
      await granted(store, clock, { ...conversationGrant, scope: 'channel', scopeId: 'C2' });
      expect(await store.grants.list({ createdBy: 'U2' })).toEqual([inChannel]);
      expect(await store.grants.list({ inChannel: 'C1' })).toEqual([inChannel]);
      // A thread's grant belongs to its channel once holdfast knows the thread.
      expect(inThread.scope).toBe('conversation');
    });
  });
}
