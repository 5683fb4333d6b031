import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/support/open-test-store.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { createTestClock } from '../../../test/support/test-clock.js';

const scopes = { conversationId: 'T1:C1:1700.1', channelId: 'C1' };

function setup() {
  const clock = createTestClock();
  return { clock, ...openTestStore(tempDir().file('holdfast.db'), { now: clock.now }) };
}

describe('grants', () => {
  it('finds a conversation grant only in that conversation', async () => {
    const { store, clock } = setup();
    const grant = await store.grants.create({
      scope: 'conversation',
      scopeId: scopes.conversationId,
      toolName: 'shell',
      createdBy: 'UAPPROVER',
      sourceRequestId: 'apr_1',
    });
    expect(grant).toMatchObject({ scope: 'conversation', createdAt: clock.now(), sourceRequestId: 'apr_1' });
    expect(await store.grants.find('shell', scopes)).toMatchObject({ id: grant.id });
    expect(
      await store.grants.find('shell', { conversationId: 'T1:C1:1700.2', channelId: 'C1' }),
    ).toBeUndefined();
    expect(await store.grants.find('deploy', scopes)).toBeUndefined();
  });

  it('finds a channel grant in every thread of the channel', async () => {
    const { store } = setup();
    await store.grants.create({ scope: 'channel', scopeId: 'C1', toolName: 'http_get', createdBy: 'UADMIN' });
    expect(await store.grants.find('http_get', { conversationId: 'T1:C1:9', channelId: 'C1' })).toBeDefined();
    expect(
      await store.grants.find('http_get', { conversationId: 'T1:C2:9', channelId: 'C2' }),
    ).toBeUndefined();
  });

  it('keeps one active grant per scope and tool, and audits only the first', async () => {
    const { store } = setup();
    const grant = {
      scope: 'conversation' as const,
      scopeId: scopes.conversationId,
      toolName: 'shell',
      createdBy: 'U1',
    };
    const first = await store.grants.create(grant);
    const second = await store.grants.create({ ...grant, createdBy: 'U2' });
    expect(second.id).toBe(first.id);
    expect(await store.grants.list(scopes)).toHaveLength(1);
    const created = (await store.audit.list()).filter((e) => e.kind === 'grant.created');
    expect(created).toHaveLength(1);
  });

  it('revokes once, audits it, and lets a new grant be made afterwards', async () => {
    const { store } = setup();
    const grant = await store.grants.create({
      scope: 'conversation',
      scopeId: scopes.conversationId,
      toolName: 'shell',
      createdBy: 'U1',
    });
    expect(await store.grants.revoke(grant.id, 'UADMIN')).toBe(true);
    expect(await store.grants.revoke(grant.id, 'UADMIN')).toBe(false);
    expect(await store.grants.find('shell', scopes)).toBeUndefined();
    expect(await store.grants.list(scopes)).toHaveLength(0);
    const revoked = (await store.audit.list()).filter((e) => e.kind === 'grant.revoked');
    expect(revoked).toMatchObject([{ actor: 'UADMIN', conversationId: scopes.conversationId }]);
    const again = await store.grants.create({
      scope: 'conversation',
      scopeId: scopes.conversationId,
      toolName: 'shell',
      createdBy: 'U1',
    });
    expect(again.id).not.toBe(grant.id);
  });
});
