import type { PoolClient } from 'pg';
import type { Migration } from '../migrations.js';
import { chainExistingAuditRows } from './pg-chain-existing-audit.js';

/**
 * A PostgreSQL migration may finish in code, in the same transaction as its SQL: work SQL alone cannot
 * do the same way the other adapter does (hashing audit rows with the shared rule).
 */
export interface PgMigration extends Migration {
  readonly after?: (client: PoolClient) => Promise<void>;
}

/**
 * The PostgreSQL schema, numbered like the SQLite migrations: version N means the same tables and the same
 * rules in both engines, so the compatibility floor and "too new" checks read alike. No PostgreSQL
 * database ever existed before version 3, so the first migration here is version 3 whole; every later one
 * is added to both lists under the same number. Append only, as for SQLite.
 */
export const postgresMigrations: readonly PgMigration[] = [
  {
    version: 3,
    description: 'the whole schema as of SQLite version 3, with one running or awaiting turn per thread',
    compatibleFrom: 3,
    sql: `
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        team_id TEXT NOT NULL,
        channel_id TEXT NOT NULL,
        thread_ts TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        kv_json TEXT NOT NULL DEFAULT '{"values":{},"children":{}}',
        UNIQUE (team_id, channel_id, thread_ts)
      );
      CREATE TABLE turns (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'awaiting_approval', 'completed', 'failed')),
        trigger_key TEXT NOT NULL UNIQUE,
        trigger_ts TEXT NOT NULL DEFAULT '',
        requested_by TEXT NOT NULL,
        input_text TEXT NOT NULL,
        lease_owner TEXT,
        lease_expires_at BIGINT,
        lease_token INTEGER NOT NULL DEFAULT 0,
        attempts INTEGER NOT NULL DEFAULT 0,
        error_code TEXT,
        error_message TEXT,
        answer_posted_at BIGINT,
        ready_at BIGINT,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE INDEX turns_by_conversation ON turns (conversation_id, status, seq);
      -- The schema, not only the code, holds a thread to one turn at work: a second claim cannot commit.
      CREATE UNIQUE INDEX turns_one_active_per_conversation ON turns (conversation_id)
        WHERE status IN ('running', 'awaiting_approval');
      CREATE INDEX turns_ready ON turns (ready_at) WHERE status = 'awaiting_approval' AND ready_at IS NOT NULL;
      CREATE INDEX turns_open ON turns (status, lease_expires_at)
        WHERE status IN ('queued', 'running', 'awaiting_approval');
      CREATE INDEX turns_open_by_user ON turns (requested_by)
        WHERE status IN ('queued', 'running', 'awaiting_approval');

      CREATE TABLE messages (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        transcript_id TEXT NOT NULL,
        turn_id TEXT NOT NULL REFERENCES turns(id),
        role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        content TEXT,
        tool_calls_json TEXT,
        tool_call_id TEXT,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX messages_by_transcript ON messages (transcript_id, seq);
      CREATE INDEX messages_by_turn ON messages (turn_id, seq);
      CREATE UNIQUE INDEX messages_one_result_per_call ON messages (transcript_id, tool_call_id)
        WHERE tool_call_id IS NOT NULL;

      CREATE TABLE tool_executions (
        transcript_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        turn_id TEXT NOT NULL REFERENCES turns(id),
        tool_name TEXT NOT NULL DEFAULT '',
        args_hash TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('started', 'finished')),
        started_at BIGINT NOT NULL,
        finished_at BIGINT,
        lease_token INTEGER,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (transcript_id, tool_call_id)
      );

      CREATE TABLE approvals (
        request_id TEXT PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations(id),
        transcript_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        turn_id TEXT NOT NULL REFERENCES turns(id),
        tool_name TEXT NOT NULL,
        permission_type TEXT NOT NULL,
        summary TEXT NOT NULL DEFAULT '',
        details_json TEXT NOT NULL,
        args_hash TEXT NOT NULL,
        reason TEXT,
        requested_by TEXT NOT NULL,
        required_approvals INTEGER NOT NULL DEFAULT 1,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL,
        resolved_at BIGINT,
        decision TEXT CHECK (decision IN ('allowed', 'denied', 'expired')),
        decided_by TEXT,
        always_allow INTEGER NOT NULL DEFAULT 0,
        kv_snapshot_json TEXT,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        UNIQUE (transcript_id, tool_call_id)
      );
      CREATE INDEX approvals_pending ON approvals (conversation_id) WHERE resolved_at IS NULL;
      CREATE INDEX approvals_by_turn ON approvals (turn_id);
      CREATE INDEX approvals_expiry ON approvals (expires_at) WHERE resolved_at IS NULL;
      CREATE INDEX approvals_decided ON approvals (resolved_at) WHERE resolved_at IS NOT NULL;

      CREATE TABLE approval_votes (
        request_id TEXT NOT NULL REFERENCES approvals(request_id),
        user_id TEXT NOT NULL,
        at BIGINT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (request_id, user_id)
      );

      CREATE TABLE approval_cards (
        channel TEXT NOT NULL,
        ts TEXT NOT NULL,
        request_id TEXT NOT NULL REFERENCES approvals(request_id),
        posted_at BIGINT NOT NULL,
        seq BIGINT GENERATED ALWAYS AS IDENTITY,
        PRIMARY KEY (channel, ts)
      );
      CREATE INDEX approval_cards_by_request ON approval_cards (request_id);

      CREATE TABLE grants (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        scope TEXT NOT NULL CHECK (scope IN ('conversation', 'channel')),
        scope_id TEXT NOT NULL,
        tool_name TEXT NOT NULL,
        created_by TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        revoked_at BIGINT,
        source_request_id TEXT,
        revoked_by TEXT
      );
      CREATE UNIQUE INDEX grants_active ON grants (scope, scope_id, tool_name) WHERE revoked_at IS NULL;

      CREATE TABLE audit_events (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at BIGINT NOT NULL,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL,
        approval_id TEXT,
        conversation_id TEXT,
        data_json TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX audit_by_approval ON audit_events (approval_id) WHERE approval_id IS NOT NULL;
      CREATE INDEX audit_by_conversation ON audit_events (conversation_id, id);

      CREATE TABLE outbox (
        id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL,
        turn_id TEXT,
        request_id TEXT,
        message_json TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at BIGINT NOT NULL,
        claim_owner TEXT,
        claim_token INTEGER NOT NULL DEFAULT 0,
        claim_expires_at BIGINT,
        in_doubt INTEGER NOT NULL DEFAULT 0,
        progress_json TEXT NOT NULL DEFAULT '{"sent":[]}',
        last_error TEXT,
        created_at BIGINT NOT NULL,
        finished_at BIGINT
      );
      CREATE INDEX outbox_pending ON outbox (conversation_id, id) WHERE status = 'pending';
      CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';
    `,
  },
  {
    version: 4,
    description: 'hash-chained audit trail',
    // Older releases insert audit rows without their hashes, which would break the chain.
    compatibleFrom: 4,
    sql: `
      -- Each audit row carries the previous row's hash and its own (see rules/audit-chain.ts), so an
      -- altered or removed row is found by "holdfast audit verify". Every insert chains its row under the
      -- chain's advisory lock (pg-audit-chain.ts); rows already here are chained after this SQL, in code.
      ALTER TABLE audit_events ADD COLUMN previous_hash TEXT, ADD COLUMN hash TEXT;
      CREATE INDEX audit_by_time ON audit_events (at);
    `,
    after: chainExistingAuditRows,
  },
  {
    version: 5,
    description: 'live messages: where a running turn shows its progress',
    sql: `
      CREATE TABLE live_messages (
        turn_id TEXT PRIMARY KEY,
        channel TEXT NOT NULL,
        ts TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('stream', 'message')),
        owner TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 6,
    description: 'reasons for decisions; grants narrowed by argument patterns, expiring, with a use limit',
    // An older release reads any grant as "the whole tool, forever": a pattern grant would widen under it.
    compatibleFrom: 6,
    sql: `
      -- What the person who denied a request said, for the model and the thread.
      ALTER TABLE approvals ADD COLUMN decision_reason TEXT;

      -- A grant covers the calls whose named arguments match these globs (a JSON object of argument name to
      -- pattern); NULL covers every call of the tool, as grants of earlier schemas did. Set for a grant of one
      -- exact call: args_hash. uses_left NULL is no limit; each call run under the grant counts it down.
      ALTER TABLE grants ADD COLUMN match_json TEXT, ADD COLUMN args_hash TEXT, ADD COLUMN expires_at BIGINT,
        ADD COLUMN uses_left INTEGER;
      -- Several grants of one tool may stand side by side now, each for its own pattern; creating one
      -- checks for an identical one under the scope's advisory lock instead (pg-grants.ts).
      DROP INDEX grants_active;
      CREATE INDEX grants_by_scope ON grants (scope, scope_id, tool_name) WHERE revoked_at IS NULL;
    `,
  },
  {
    version: 7,
    description: 'messages kept between their acknowledgement and their turn',
    // An older release ignores the table (see the SQLite migration 7).
    compatibleFrom: 6,
    sql: `
      CREATE TABLE inbound_messages (
        key TEXT PRIMARY KEY,
        seq BIGSERIAL,
        lane TEXT NOT NULL,
        payload_json TEXT NOT NULL,
        received_at BIGINT NOT NULL
      );
    `,
  },
  {
    version: 8,
    description: 'one message may be a card of several requests (a plan of calls that wait together)',
    // An older release names the old key (channel, ts) in ON CONFLICT (see the SQLite migration 8).
    compatibleFrom: 8,
    sql: `
      ALTER TABLE approval_cards DROP CONSTRAINT approval_cards_pkey, ADD PRIMARY KEY (channel, ts, request_id);
    `,
  },
  {
    version: 9,
    description: 'the SQLite schema catches up with this one (see its migration 9); nothing changes here',
    compatibleFrom: 8,
    sql: 'SELECT 1;',
  },
  {
    version: 10,
    description: 'who stopped a turn is kept as data, not read back out of its error message',
    compatibleFrom: 8,
    sql: 'ALTER TABLE turns ADD COLUMN stopped_by TEXT;',
  },
];
