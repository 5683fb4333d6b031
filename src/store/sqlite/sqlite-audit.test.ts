import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/support/open-test-store.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { StoredRowInvalidError } from '../store-errors.js';

function setup() {
  const clock = createTestClock();
  return { clock, ...openTestStore(tempDir().file('holdfast.db'), { now: clock.now }) };
}

describe('audit', () => {
  it('records events and filters them by approval and conversation, oldest first', async () => {
    const { store, clock } = setup();
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
      data: { tool: 'x' },
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
      { kind: 'approval.refused', data: {} },
      { kind: 'tool.started', at: clock.now(), approvalId: null, data: { tool: 'x' } },
    ]);
    expect(await store.audit.list({ limit: 1 })).toHaveLength(1);
  });

  it('names the row when its data is not a JSON object', async () => {
    const { store, db } = setup();
    await store.audit.record({ actor: 'U1', kind: 'tool.started' });
    db.prepare(`UPDATE audit_events SET data_json = '[1'`).run();
    await expect(store.audit.list()).rejects.toBeInstanceOf(StoredRowInvalidError);
  });
});

describe('deliveries.firstSighting', () => {
  it('is true once per delivery and false for a retry with the same event id', async () => {
    const { store } = setup();
    expect(await store.deliveries.firstSighting(['Ev1', 'C1:1700.1'])).toBe(true);
    expect(await store.deliveries.firstSighting(['Ev1', 'C1:1700.1'])).toBe(false);
  });

  it('dedupes the message/app_mention twins that share only channel:ts', async () => {
    const { store } = setup();
    expect(await store.deliveries.firstSighting(['EvMention', 'C1:1700.1'])).toBe(true);
    expect(await store.deliveries.firstSighting(['EvMessage', 'C1:1700.1'])).toBe(false);
    // The twin's own event id is remembered too, so its retry is caught as well.
    expect(await store.deliveries.firstSighting(['EvMessage'])).toBe(false);
    expect(await store.deliveries.firstSighting(['EvOther', 'C1:1700.2'])).toBe(true);
  });

  it('forgets deliveries older than the cut-off', async () => {
    const { store, clock } = setup();
    await store.deliveries.firstSighting(['old']);
    clock.advance(1_000);
    await store.deliveries.firstSighting(['new']);
    expect(await store.deliveries.prune(clock.now())).toBe(1);
    expect(await store.deliveries.firstSighting(['old'])).toBe(true);
    expect(await store.deliveries.firstSighting(['new'])).toBe(false);
  });
});
