import type { Migration } from './migration.js';

export const migration2: Migration = {
  version: 2,
  description: 'nested transcripts, quorum votes, expiry sweep, reply outbox, per-conversation kv',
  sql: `
      ALTER TABLE conversations ADD COLUMN kv_json TEXT NOT NULL DEFAULT '{"values":{},"children":{}}';

      ALTER TABLE turns ADD COLUMN trigger_ts TEXT NOT NULL DEFAULT '';
      ALTER TABLE turns ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE turns ADD COLUMN error_code TEXT;
      ALTER TABLE turns ADD COLUMN error_message TEXT;
      ALTER TABLE turns ADD COLUMN answer_posted_at INTEGER;

      -- A nested agent keeps its own transcript inside the conversation; tool call ids are unique per
      -- transcript, not per conversation.
      ALTER TABLE messages ADD COLUMN transcript_id TEXT NOT NULL DEFAULT '';
      UPDATE messages SET transcript_id = conversation_id;
      DROP INDEX messages_by_conversation;
      DROP INDEX messages_one_result_per_call;
      CREATE INDEX messages_by_transcript ON messages (transcript_id, seq);
      CREATE INDEX messages_by_turn ON messages (turn_id, seq);
      CREATE UNIQUE INDEX messages_one_result_per_call ON messages (transcript_id, tool_call_id)
        WHERE tool_call_id IS NOT NULL;

      CREATE TABLE tool_executions_v2 (
        transcript_id TEXT NOT NULL,
        tool_call_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        turn_id TEXT NOT NULL REFERENCES turns(id),
        tool_name TEXT NOT NULL DEFAULT '',
        args_hash TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('started', 'finished')),
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        PRIMARY KEY (transcript_id, tool_call_id)
      );
      INSERT INTO tool_executions_v2
        (transcript_id, tool_call_id, conversation_id, turn_id, args_hash, status, started_at, finished_at)
        SELECT conversation_id, tool_call_id, conversation_id, turn_id, args_hash, status, started_at, finished_at
        FROM tool_executions;
      DROP TABLE tool_executions;
      ALTER TABLE tool_executions_v2 RENAME TO tool_executions;

      -- The seed keyed approvals by (conversation, tool_call_id); nested transcripts need the transcript
      -- in the key, and SQLite cannot drop a table constraint, so the table is rebuilt.
      CREATE TABLE approvals_v2 (
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
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        resolved_at INTEGER,
        decision TEXT CHECK (decision IN ('allowed', 'denied', 'expired')),
        decided_by TEXT,
        always_allow INTEGER NOT NULL DEFAULT 0,
        card_channel TEXT,
        card_ts TEXT,
        kv_snapshot_json TEXT,
        UNIQUE (transcript_id, tool_call_id)
      );
      INSERT INTO approvals_v2
        (request_id, conversation_id, transcript_id, tool_call_id, turn_id, tool_name, permission_type,
         details_json, args_hash, requested_by, created_at, expires_at, resolved_at, decision, decided_by,
         card_channel, card_ts, kv_snapshot_json)
        SELECT request_id, conversation_id, conversation_id, tool_call_id, turn_id, tool_name, permission_type,
          details_json, args_hash, requested_by, created_at, expires_at, resolved_at, decision, decided_by,
          card_channel, card_ts, kv_snapshot_json
        FROM approvals;
      DROP TABLE approvals;
      ALTER TABLE approvals_v2 RENAME TO approvals;
      CREATE INDEX approvals_pending ON approvals (conversation_id) WHERE resolved_at IS NULL;
      CREATE INDEX approvals_by_turn ON approvals (turn_id);
      CREATE INDEX approvals_expiry ON approvals (expires_at) WHERE resolved_at IS NULL;
      CREATE INDEX approvals_without_card ON approvals (created_at) WHERE resolved_at IS NULL AND card_ts IS NULL;

      CREATE TABLE approval_votes (
        request_id TEXT NOT NULL REFERENCES approvals(request_id),
        user_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (request_id, user_id)
      );

      ALTER TABLE grants ADD COLUMN source_request_id TEXT;
      ALTER TABLE grants ADD COLUMN revoked_by TEXT;
      CREATE UNIQUE INDEX grants_active ON grants (scope, scope_id, tool_name) WHERE revoked_at IS NULL;

      CREATE INDEX audit_by_approval ON audit_events (approval_id) WHERE approval_id IS NOT NULL;
      CREATE INDEX audit_by_conversation ON audit_events (conversation_id, id);
      CREATE INDEX deliveries_by_age ON slack_deliveries (received_at);
    `,
};
