import { describe, expect, it } from 'vitest';
import {
  c1,
  call,
  fillVersion1,
  fillVersion2,
  floorOf,
  olderFile,
  t0,
} from '../../test/support/older-database-files.js';
import { openTestStore } from '../../test/support/open-test-store.js';
import { finalAnswerOf, transcriptOf, wholeToolGrant } from '../../test/support/store-reads.js';
import { grantByDecision } from '../../test/support/store-requests.js';
import { createTestClock } from '../../test/support/test-clock.js';
import { AuditChainVerifier } from '../audit/verify-audit-chain.js';
import { latestSchemaVersion, migrations } from './migrations.js';
import { openDatabase } from './open-database.js';

describe('openDatabase upgrades an older file in place', () => {
  // The seed posted answers itself and kept no record of it: its finished turns must not be answered again.
  it('from version 1 (the seed): every row kept, the card recorded, the card-less request queued to post', async () => {
    const file = olderFile(1, fillVersion1);
    const clock = createTestClock(t0 + 60_000);
    const { store, db } = openTestStore(file, { now: clock.now });
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect(floorOf(db)).toBe('8');

    expect(await store.turns.get('turn-1')).toMatchObject({
      status: 'awaiting_approval',
      leaseToken: 0,
      attempts: 0,
      triggerKey: 'C0OPS:1700.1',
    });
    // Read by transcript: rows of version 1 became the conversation's own transcript.
    expect(await transcriptOf(store, c1)).toEqual([
      { role: 'user', content: 'check uptime' },
      { role: 'assistant', content: null, toolCalls: [call('call_1'), call('call_2')] },
      { role: 'tool', toolCallId: 'call_2', content: 'up 3 days' },
    ]);
    expect(await store.approvals.get('apr_1')).toMatchObject({
      transcriptId: c1,
      arguments: { command: 'uptime' },
      requiredApprovals: 1,
      approvedBy: [],
      decision: null,
      cards: [{ channel: 'C0OPS', ts: '1700.5' }],
    });
    expect(await store.turns.resumeKv('turn-1')).toEqual({ values: { step: 1 }, children: {} });
    expect((await store.turns.recoverable()).queued).toEqual([]);
    expect(await wholeToolGrant(store, 'http_get', { conversationId: c1, channelId: 'C0OPS' })).toBeDefined();
    expect(await store.audit.list()).toMatchObject([{ kind: 'approval.requested', data: { tool: 'shell' } }]);
    const outbox = db.prepare(
      'SELECT key, request_id AS requestId, status, message_json AS message FROM outbox',
    );
    expect(outbox.all()).toEqual([
      {
        key: 'card:apr_2',
        requestId: 'apr_2',
        status: 'pending',
        message: JSON.stringify({ type: 'approval-card', requestId: 'apr_2' }),
      },
    ]);
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all();
    expect(tables).not.toContain('slack_deliveries');

    // The upgraded turn carries on: decided, resumed under a fence, its finished call not run again.
    await store.approvals.resolve({ requestId: 'apr_1', decision: 'allowed', decidedBy: 'UA' });
    const claim = await store.turns.claim('turn-1', { owner: 'proc-a', durationMs: 60_000 });
    if (claim.type !== 'claimed') throw new Error(`not claimed: ${claim.reason}`);
    expect(claim).toMatchObject({ mode: 'resume', fence: { token: 1 } });
    const ref = { conversationId: c1, transcriptId: c1, turnId: 'turn-1', toolCallId: 'call_2' };
    expect(
      await store.transcript.startTool(claim.fence, { ...ref, toolName: 'shell', argsHash: 'h2' }),
    ).toEqual({
      type: 'previously-started',
      startedAt: t0,
    });
    expect(await store.transcript.recordToolResult(claim.fence, ref, 'again')).toBe(false);
  });

  it('from version 2: unposted answers and card-less pending requests become outbox rows, nothing else', async () => {
    const file = olderFile(2, fillVersion2);
    const { store, db } = openTestStore(file);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect((await store.conversations.get(c1))?.kv).toEqual({ values: { n: 1 }, children: {} });
    expect(await store.turns.get('turn-1')).toMatchObject({
      triggerTs: '1700.1',
      attempts: 2,
      leaseToken: 0,
    });
    expect(await store.approvals.get('apr_1')).toMatchObject({
      transcriptId: c1,
      summary: 'run uptime',
      reason: 'routine',
      requiredApprovals: 2,
      approvedBy: ['UA'],
      cards: [{ channel: 'C0OPS', ts: '1700.5' }],
    });
    expect(await store.approvals.get('apr_2')).toMatchObject({ decision: 'denied', cards: [] });
    const nested = `${c1}>call_1`;
    expect((await transcriptOf(store, nested)).map((m) => m.content)).toEqual(['a nested answer']);
    expect(await finalAnswerOf(store, 'turn-4')).toBe('the answer');
    const outbox = db.prepare(
      'SELECT key, turn_id AS turnId, status, message_json AS json FROM outbox ORDER BY id',
    );
    expect(outbox.all()).toEqual([
      {
        key: 'card:apr_3',
        turnId: 'turn-3',
        status: 'pending',
        json: JSON.stringify({ type: 'approval-card', requestId: 'apr_3' }),
      },
      {
        key: 'answer:turn-4',
        turnId: 'turn-4',
        status: 'pending',
        json: JSON.stringify({ type: 'answer', turnId: 'turn-4', text: 'the answer' }),
      },
    ]);
  });
  it('from version 3: the audit rows already there are chained, oldest first, and new ones follow them', async () => {
    const file = olderFile(3, (db) => {
      const insert = db.prepare(
        `INSERT INTO audit_events (id, at, actor, kind, approval_id, conversation_id, data_json)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      insert.run(3, t0, 'UREQUESTER', 'approval.requested', 'apr_1', c1, '{"tool":"shell"}');
      insert.run(7, t0 + 1, 'UA', 'approval.allowed', 'apr_1', c1, '{}');
    });
    const { store } = openTestStore(file);
    await store.audit.record({ actor: 'holdfast', kind: 'tool.started', conversationId: c1 });
    const events = await store.audit.list();
    expect(events.map((e) => [e.id, e.kind])).toEqual([
      [3, 'approval.requested'],
      [7, 'approval.allowed'],
      [8, 'tool.started'],
    ]);
    const verifier = new AuditChainVerifier();
    expect(events.map((event) => verifier.check(event))).toEqual([undefined, undefined, undefined]);
    expect(events[1]!.previousHash).toBe(events[0]!.hash);
    expect(events[2]!.previousHash).toBe(events[1]!.hash);
  });

  it('from version 8: requests and their cards kept, the seed card columns gone, one turn at work per thread held by the schema', async () => {
    const file = olderFile(1, fillVersion1);
    const atVersion8 = openDatabase(file, { migrations: migrations.slice(0, 8) });
    expect(atVersion8.pragma('user_version', { simple: true })).toBe(8);
    atVersion8.close();
    const { store, db } = openTestStore(file);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    // A release of version 8 runs on it still: it never read those columns.
    expect(floorOf(db)).toBe('8');
    expect((await store.approvals.get('apr_1'))?.cards).toEqual([{ channel: 'C0OPS', ts: '1700.5' }]);
    const columns = db
      .prepare<[], { name: string }>('PRAGMA table_info(approvals)')
      .all()
      .map((column) => column.name);
    expect(columns).not.toContain('card_ts');
    expect(columns).not.toContain('card_channel');

    const conversation = 'T0:C0OPS:1700.9';
    db.prepare(
      `INSERT INTO conversations (id, team_id, channel_id, thread_ts, created_at) VALUES (?, 'T0', 'C0OPS', '1700.9', ?)`,
    ).run(conversation, t0);
    const insertRunning = (id: string) =>
      db
        .prepare(
          `INSERT INTO turns (id, conversation_id, status, trigger_key, trigger_ts, requested_by, input_text,
             created_at, updated_at)
           VALUES (?, ?, 'running', ?, '1700.9', 'U0ALICE', 'restart it', ?, ?)`,
        )
        .run(id, conversation, `key-${id}`, t0, t0);
    insertRunning('turn-a');
    expect(() => insertRunning('turn-b')).toThrow(/UNIQUE/);
  });

  it('from version 7: every card kept, and one message may now be a card of several requests', async () => {
    const file = olderFile(1, fillVersion1);
    // The same file as a release of version 7 left it, then opened by this one.
    const atVersion7 = openDatabase(file, { migrations: migrations.slice(0, 7) });
    expect(atVersion7.pragma('user_version', { simple: true })).toBe(7);
    atVersion7.close();
    const { store, db } = openTestStore(file);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect((await store.approvals.get('apr_1'))?.cards).toEqual([{ channel: 'C0OPS', ts: '1700.5' }]);

    db.prepare(
      `INSERT INTO approval_cards (channel, ts, request_id, posted_at) VALUES ('C0OPS', '1700.5', 'apr_2', ?)`,
    ).run(t0);

    expect((await store.approvals.get('apr_1'))?.cards).toEqual([{ channel: 'C0OPS', ts: '1700.5' }]);
    expect((await store.approvals.get('apr_2'))?.cards).toEqual([{ channel: 'C0OPS', ts: '1700.5' }]);
  });

  it('from version 3: a grant stays a whole-tool grant, a decision keeps no reason, and the floor is 8', async () => {
    const file = olderFile(3, (db) => {
      const run = (sql: string, ...params: unknown[]) => db.prepare(sql).run(...params);
      run(
        `INSERT INTO conversations (id, team_id, channel_id, thread_ts, created_at) VALUES (?, 'T0HOLDFAST', 'C0OPS', '1700.1', ?)`,
        c1,
        t0,
      );
      run(
        `INSERT INTO grants (scope, scope_id, tool_name, created_by, created_at, source_request_id)
         VALUES ('conversation', ?, 'shell', 'UADMIN', ?, 'apr_old')`,
        c1,
        t0,
      );
    });
    const { store, db } = openTestStore(file);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect(floorOf(db)).toBe('8');
    const grant = await wholeToolGrant(store, 'shell', { conversationId: c1, channelId: 'C0OPS' });
    expect(grant).toMatchObject({
      createdBy: 'UADMIN',
      match: null,
      argsHash: null,
      expiresAt: null,
      usesLeft: null,
    });
    // Two grants of one tool may stand side by side now (the old unique index is gone).
    await grantByDecision(store, Date.now(), {
      scope: 'conversation',
      scopeId: c1,
      createdBy: 'UB',
      match: { command: 'ls *' },
    });
    expect(await store.grants.usable('shell', { conversationId: c1, channelId: 'C0OPS' })).toHaveLength(2);
  });

  it('from version 9: a turn a release of version 9 stopped stays stopped, with no stopper named', async () => {
    const file = olderFile(1, fillVersion1);
    const atVersion9 = openDatabase(file, { migrations: migrations.slice(0, 9) });
    atVersion9
      .prepare(
        `INSERT INTO turns (id, conversation_id, status, trigger_key, trigger_ts, requested_by, input_text,
           error_code, error_message, created_at, updated_at)
         VALUES ('turn-stopped', ?, 'failed', 'key-stopped', '1700.8', 'U0ALICE', 'deploy', 'turn_stopped',
           'Stopped by <@U0ALICE>', ?, ?)`,
      )
      .run(c1, t0, t0);
    atVersion9.close();
    const { store, db } = openTestStore(file);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect(floorOf(db)).toBe('8');
    expect(await store.turns.get('turn-stopped')).toMatchObject({
      status: 'failed',
      errorCode: 'turn_stopped',
      stoppedBy: null,
    });
  });
});
