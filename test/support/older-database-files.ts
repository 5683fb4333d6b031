import type Database from 'better-sqlite3';
import { expect } from 'vitest';
import { migrations } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/open-database.js';
import { tempDir } from './temp-dir.js';
import { testEpoch } from './test-clock.js';

/** Database files as earlier releases left them, for the tests that upgrade them in place. */
export const c1 = 'T0HOLDFAST:C0OPS:1700.1';
export const c2 = 'T0HOLDFAST:C0OPS:1700.2';
export const t0 = testEpoch;
export const day = 24 * 60 * 60_000;

/** A database file as the release with only `count` migrations left it, filled by `fill`. */
export function olderFile(count: number, fill: (db: Database.Database) => void): string {
  const file = tempDir().file('holdfast.db');
  const db = openDatabase(file, { migrations: migrations.slice(0, count) });
  expect(db.pragma('user_version', { simple: true })).toBe(count);
  db.transaction(() => fill(db))();
  db.close();
  return file;
}

export function floorOf(db: Database.Database): unknown {
  return db.prepare(`SELECT value FROM holdfast_meta WHERE key = 'compatible_from_schema'`).pluck().get();
}

export const call = (id: string) => ({ id, name: 'shell', arguments: '{"command":"uptime"}' });

/**
 * Two threads as the seed schema (version 1) kept them: one turn waiting with a card, one without, and a
 * turn the seed finished (and answered) long ago.
 */
export function fillVersion1(db: Database.Database): void {
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
export function fillVersion2(db: Database.Database): void {
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
