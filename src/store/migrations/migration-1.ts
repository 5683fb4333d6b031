import type { Migration } from './migration.js';

export const migration1: Migration = {
  version: 1,
  description: 'conversations, turns, transcript, approvals',
  sql: `
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        thread_ts TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        UNIQUE (team_id, channel_id, thread_ts)
      );
      CREATE TABLE turns (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'awaiting_approval', 'completed', 'failed')),
        trigger_key TEXT NOT NULL UNIQUE,
        requested_by TEXT NOT NULL,
        input_text TEXT NOT NULL,
        lease_owner TEXT,
        lease_expires_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX turns_by_conversation ON turns (conversation_id, status, seq);
      CREATE TABLE messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        turn_id TEXT NOT NULL REFERENCES turns(id),
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content TEXT,
        tool_calls_json TEXT,
        tool_call_id TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);
      CREATE UNIQUE INDEX messages_one_result_per_call ON messages (conversation_id, tool_call_id)
        WHERE tool_call_id IS NOT NULL;
      CREATE TABLE tool_executions (
        conversation_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        turn_id TEXT NOT NULL REFERENCES turns(id),
        args_hash TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('started', 'finished')),
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        PRIMARY KEY (conversation_id, tool_call_id)
      );
      CREATE TABLE approvals (
        request_id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        tool_call_id TEXT NOT NULL,
        turn_id TEXT NOT NULL REFERENCES turns(id),
        tool_name TEXT NOT NULL,
        permission_type TEXT NOT NULL,
        details_json TEXT NOT NULL,
        args_hash TEXT NOT NULL,
        requested_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        resolved_at INTEGER,
        decision TEXT CHECK (decision IN ('allowed', 'denied', 'expired')),
        decided_by TEXT,
        card_channel TEXT,
        card_ts TEXT,
        kv_snapshot_json TEXT,
        UNIQUE (conversation_id, tool_call_id)
      );
      CREATE INDEX approvals_pending ON approvals (conversation_id) WHERE resolved_at IS NULL;
      CREATE TABLE grants (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        scope TEXT NOT NULL CHECK (scope IN ('conversation', 'channel')),
        scope_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      );
      CREATE TABLE audit_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL,
        approval_id TEXT,
        conversation_id TEXT,
        data_json TEXT NOT NULL DEFAULT '{}'
      );
      CREATE TABLE slack_deliveries (
        key TEXT PRIMARY KEY,
        received_at INTEGER NOT NULL
      );
    `,
};
