import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../test/support/open-test-store.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { createTestClock, testEpoch } from '../../test/support/test-clock.js';
import { AuditChainVerifier } from '../audit/verify-audit-chain.js';
import { latestSchemaVersion, migrations } from './migrations.js';
import { openDatabase } from './open-database.js';

const c1 = 'T0HOLDFAST:C0OPS:1700.1';
const c2 = 'T0HOLDFAST:C0OPS:1700.2';
const t0 = testEpoch;
const day = 24 * 60 * 60_000;

/** A database file as the release with only `count` migrations left it, filled by `fill`. */
function olderFile(count: number, fill: (db: Database.Database) => void): string {
  const file = tempDir().file('holdfast.db');
  const db = openDatabase(file, { migrations: migrations.slice(0, count) });
  expect(db.pragma('user_version', { simple: true })).toBe(count);
  db.transaction(() => fill(db))();
  db.close();
  return file;
}

function floorOf(db: Database.Database): unknown {
  return db.prepare(`SELECT value FROM holdfast_meta WHERE key = 'compatible_from_schema'`).pluck().get();
}

const call = (id: string) => ({ id, name: 'shell', arguments: '{"command":"uptime"}' });

/**
 * Two threads as the seed schema (version 1) kept them: one turn waiting with a card, one without, and a
 * turn the seed finished (and answered) long ago.
 */
function fillVersion1(db: Database.Database): void {
  const run = (sql: string, ...params: unknown[]) => db.prepare(sql).run(...params);
  for (const [id, ts] of [
    [c1, '1700.1'],
    [c2, '1700.2'],
  ]) {
    run(`INSERT INTO conversations VALUES (?, 'T0HOLDFAST', 'C0OPS', ?, ?)`, id, ts, t0);
  }
  const turn = `INSERT INTO turns (id, conversation_id, status, trigger_key, requested_by, input_text, created_at,
    updated_at) VALUES (?, ?, ?, ?, 'UREQUESTER', 'check uptime', ?, ?)`;
  run(turn, 'turn-1', c1, 'awaiting_approval', 'C0OPS:1700.1', t0, t0);
  run(turn, 'turn-2', c2, 'awaiting_approval', 'C0OPS:1700.2', t0, t0);
  run(turn, 'turn-3', c1, 'queued', 'C0OPS:1700.3', t0 + 1, t0 + 1);
  run(turn, 'turn-old', c2, 'completed', 'C0OPS:1600.1', t0 - day, t0 - day);
  const message = `INSERT INTO messages (conversation_id, turn_id, role, content, tool_calls_json, tool_call_id,
    created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`;
  run(message, c1, 'turn-1', 'user', 'check uptime', null, null, t0);
  run(message, c1, 'turn-1', 'assistant', null, JSON.stringify([call('call_1'), call('call_2')]), null, t0);
  run(message, c1, 'turn-1', 'tool', 'up 3 days', null, 'call_2', t0);
  run(message, c2, 'turn-old', 'assistant', 'an answer from last year', null, null, t0 - day);
  run(`INSERT INTO tool_executions VALUES (?, 'call_2', 'turn-1', 'h2', 'finished', ?, ?)`, c1, t0, t0);
  const approval = `INSERT INTO approvals (request_id, conversation_id, tool_call_id, turn_id, tool_name,
    permission_type, details_json, args_hash, requested_by, created_at, expires_at, card_channel, card_ts,
    kv_snapshot_json) VALUES (?, ?, 'call_1', ?, 'shell', 'shell', ?, 'h1', 'UREQUESTER', ?, ?, ?, ?, ?)`;
  const details = JSON.stringify({ arguments: { command: 'uptime' } });
  const kv = JSON.stringify({ values: { step: 1 }, children: {} });
  run(approval, 'apr_1', c1, 'turn-1', details, t0, t0 + day, 'C0OPS', '1700.5', kv);
  run(approval, 'apr_2', c2, 'turn-2', details, t0, t0 + day, null, null, null);
  run(
    `INSERT INTO grants (scope, scope_id, tool_name, created_by, created_at) VALUES ('channel', 'C0OPS',
    'http_get', 'UADMIN', ?)`,
    t0,
  );
  run(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
    VALUES (?, 'UREQUESTER', 'approval.requested', 'apr_1', ?, '{"tool":"shell"}')`,
    t0,
    c1,
  );
  run(`INSERT INTO slack_deliveries VALUES ('Ev1', ?)`, t0);
}

/**
 * Version 2 rows: a quorum request with a card and a vote, a decided request that never got a card, a
 * pending one that never got a card, an answer posted and an answer never posted (after a nested reply
 * and a later message with tool calls, neither of which is the answer).
 */
function fillVersion2(db: Database.Database): void {
  const run = (sql: string, ...params: unknown[]) => db.prepare(sql).run(...params);
  run(
    `INSERT INTO conversations (id, team_id, channel_id, thread_ts, created_at, kv_json)
    VALUES (?, 'T0HOLDFAST', 'C0OPS', '1700.1', ?, '{"values":{"n":1},"children":{}}')`,
    c1,
    t0,
  );
  run(
    `INSERT INTO conversations (id, team_id, channel_id, thread_ts, created_at) VALUES (?, 'T0HOLDFAST',
    'C0OPS', '1700.2', ?)`,
    c2,
    t0,
  );
  const turn = `INSERT INTO turns (id, conversation_id, status, trigger_key, trigger_ts, requested_by, input_text,
    attempts, answer_posted_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'UREQUESTER', 'hi', ?, ?, ?, ?)`;
  run(turn, 'turn-1', c1, 'awaiting_approval', 'C0OPS:1700.1', '1700.1', 2, null, t0, t0);
  run(turn, 'turn-2', c2, 'completed', 'C0OPS:1700.2', '1700.2', 1, t0 + 9, t0, t0 + 9);
  run(turn, 'turn-3', c2, 'awaiting_approval', 'C0OPS:1700.3', '1700.3', 1, null, t0 + 10, t0 + 10);
  run(turn, 'turn-4', c1, 'completed', 'C0OPS:1700.4', '1700.4', 1, null, t0 + 11, t0 + 11);
  const message = `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, tool_calls_json,
    created_at) VALUES (?, ?, ?, 'assistant', ?, ?, ?)`;
  run(message, c2, c2, 'turn-2', 'posted answer', null, t0);
  run(message, c1, c1, 'turn-4', 'the answer', null, t0);
  run(message, c1, `${c1}>call_1`, 'turn-4', 'a nested answer', null, t0);
  run(message, c1, c1, 'turn-4', null, JSON.stringify([call('call_9')]), t0);
  const approval = `INSERT INTO approvals (request_id, conversation_id, transcript_id, tool_call_id, turn_id,
    tool_name, permission_type, summary, details_json, args_hash, reason, requested_by, required_approvals,
    created_at, expires_at, resolved_at, decision, decided_by, card_channel, card_ts)
    VALUES (?, ?, ?, ?, ?, 'shell', 'shell', 'run uptime', '{"arguments":{}}', 'h', ?, 'UREQUESTER', ?, ?, ?, ?,
      ?, ?, ?, ?)`;
  run(
    approval,
    'apr_1',
    c1,
    c1,
    'call_1',
    'turn-1',
    'routine',
    2,
    t0,
    t0 + day,
    null,
    null,
    null,
    'C0OPS',
    '1700.5',
  );
  run(
    approval,
    'apr_2',
    c2,
    c2,
    'call_1',
    'turn-2',
    null,
    1,
    t0,
    t0 + day,
    t0 + 1,
    'denied',
    'UB',
    null,
    null,
  );
  run(approval, 'apr_3', c2, c2, 'call_2', 'turn-3', null, 1, t0, t0 + day, null, null, null, null, null);
  run(`INSERT INTO approval_votes VALUES ('apr_1', 'UA', ?)`, t0);
}

describe('openDatabase upgrades an older file in place', () => {
  // The seed posted answers itself and kept no record of it: its finished turns must not be answered again.
  it('from version 1 (the seed): every row kept, the card recorded, the card-less request queued to post', async () => {
    const file = olderFile(1, fillVersion1);
    const clock = createTestClock(t0 + 60_000);
    const { store, db } = openTestStore(file, { now: clock.now });
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    expect(floorOf(db)).toBe('6');

    expect(await store.turns.get('turn-1')).toMatchObject({
      status: 'awaiting_approval',
      leaseToken: 0,
      attempts: 0,
      triggerKey: 'C0OPS:1700.1',
    });
    expect((await store.transcript.messages(c1)).map((m) => [m.transcriptId, m.message])).toEqual([
      [c1, { role: 'user', content: 'check uptime' }],
      [c1, { role: 'assistant', content: null, toolCalls: [call('call_1'), call('call_2')] }],
      [c1, { role: 'tool', toolCallId: 'call_2', content: 'up 3 days' }],
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
    expect(await store.grants.find('http_get', { conversationId: c1, channelId: 'C0OPS' })).toBeDefined();
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
    expect((await store.transcript.messages(nested)).map((m) => m.message.content)).toEqual([
      'a nested answer',
    ]);
    expect(await store.transcript.finalAnswer('turn-4')).toBe('the answer');
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

  it('from version 3: a grant stays a whole-tool grant, a decision keeps no reason, and the floor is 6', async () => {
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
    expect(floorOf(db)).toBe('6');
    const grant = await store.grants.find('shell', { conversationId: c1, channelId: 'C0OPS' });
    expect(grant).toMatchObject({
      createdBy: 'UADMIN',
      match: null,
      argsHash: null,
      expiresAt: null,
      usesLeft: null,
    });
    // Two grants of one tool may stand side by side now (the old unique index is gone).
    await store.grants.create({
      scope: 'conversation',
      scopeId: c1,
      toolName: 'shell',
      createdBy: 'UB',
      match: { command: 'ls *' },
    });
    expect(await store.grants.usable('shell', { conversationId: c1, channelId: 'C0OPS' })).toHaveLength(2);
  });
});
