/**
 * Numbered schema migrations, tracked with `PRAGMA user_version`. Append only: a migration that has
 * shipped is never edited, because files made by it exist on somebody's disk. Every past version has a
 * fixture database under test (see `migrations.test.ts`).
 */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
  /**
   * The oldest schema version whose code still works correctly on the database after this migration
   * (default: this version, i.e. older releases must not run on it). A release may be rolled back onto a
   * database up to this far ahead of it; the floor is recorded in the file so the old release can tell.
   */
  readonly compatibleFrom?: number;
}

export const migrations: readonly Migration[] = [
  {
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
  },
  {
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
  },
  {
    version: 3,
    description: 'fenced leases, the outbox, every card of a request, the compatibility floor',
    // Older releases post cards and answers directly and would duplicate what the outbox sends.
    compatibleFrom: 3,
    sql: `
      -- Incremented by every claim: a write carrying an older token comes from a process that lost the turn.
      ALTER TABLE turns ADD COLUMN lease_token INTEGER NOT NULL DEFAULT 0;
      -- The claim a ledger entry was written under: the decision that resumes a turn marks the call it will
      -- run first in its own commit, and only that claim may then run it.
      ALTER TABLE tool_executions ADD COLUMN lease_token INTEGER;
      -- Set when the last undecided request of an awaiting turn is decided: the sweep finds turns to
      -- resume by this index, in proportion to what is ready, not to everything that waits.
      ALTER TABLE turns ADD COLUMN ready_at INTEGER;
      UPDATE turns SET ready_at = updated_at WHERE status = 'awaiting_approval'
        AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = turns.id AND a.resolved_at IS NULL);
      CREATE INDEX turns_ready ON turns (ready_at) WHERE status = 'awaiting_approval' AND ready_at IS NOT NULL;
      CREATE INDEX turns_open ON turns (status, lease_expires_at)
        WHERE status IN ('queued', 'running', 'awaiting_approval');
      CREATE INDEX turns_open_by_user ON turns (requested_by)
        WHERE status IN ('queued', 'running', 'awaiting_approval');

      -- Everything holdfast shows people goes through here, written in the commit that causes it and
      -- claimed before it is sent (DESIGN §7).
      CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        key TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL,
        turn_id TEXT,
        request_id TEXT,
        message_json TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        claim_owner TEXT,
        claim_token INTEGER NOT NULL DEFAULT 0,
        claim_expires_at INTEGER,
        in_doubt INTEGER NOT NULL DEFAULT 0,
        progress_json TEXT NOT NULL DEFAULT '{"sent":[]}',
        last_error TEXT,
        created_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX outbox_pending ON outbox (conversation_id, id) WHERE status = 'pending';
      CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';

      -- A request may have several cards (a re-post, direct messages to approvers); each one decides it.
      CREATE TABLE approval_cards (
        channel TEXT NOT NULL,
        ts TEXT NOT NULL,
        request_id TEXT NOT NULL REFERENCES approvals(request_id),
        posted_at INTEGER NOT NULL,
        PRIMARY KEY (channel, ts)
      );
      CREATE INDEX approval_cards_by_request ON approval_cards (request_id);
      INSERT INTO approval_cards (channel, ts, request_id, posted_at)
        SELECT card_channel, card_ts, request_id, created_at FROM approvals
        WHERE card_channel IS NOT NULL AND card_ts IS NOT NULL;

      -- Pending cards and unposted answers of the old design become outbox rows, so nothing is lost.
      INSERT INTO outbox (key, conversation_id, turn_id, request_id, message_json, next_attempt_at, created_at)
        SELECT 'card:' || request_id, conversation_id, turn_id, request_id,
          json_object('type', 'approval-card', 'requestId', request_id), created_at, created_at
        FROM approvals WHERE resolved_at IS NULL AND card_ts IS NULL;
      INSERT INTO outbox (key, conversation_id, turn_id, message_json, next_attempt_at, created_at)
        SELECT 'answer:' || t.id, t.conversation_id, t.id,
          json_object('type', 'answer', 'turnId', t.id, 'text', m.content), t.updated_at, t.updated_at
        FROM turns t JOIN messages m ON m.seq = (
          SELECT max(seq) FROM messages WHERE turn_id = t.id AND transcript_id = t.conversation_id
            AND role = 'assistant' AND tool_calls_json IS NULL)
        -- attempts = 0: finished by the seed (schema 1), which posted its answers itself and recorded nothing;
        -- schema 2 reads them as unposted, and answering every old thread again would flood the workspace.
        WHERE t.status = 'completed' AND t.answer_posted_at IS NULL AND t.attempts > 0;

      DROP TABLE slack_deliveries;

      CREATE TABLE holdfast_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    version: 4,
    description: 'hash-chained audit trail',
    // Older releases do not register holdfast_audit_hash, so every audit insert of theirs would fail.
    compatibleFrom: 4,
    sql: `
      -- Each audit row carries the previous row's hash and its own (see rules/audit-chain.ts), so an
      -- altered or removed row is found by "holdfast audit verify". The trigger chains every insert, whoever
      -- makes it; rows already there are chained here, oldest first, by copying them through it.
      ALTER TABLE audit_events RENAME TO audit_events_unchained;
      CREATE TABLE audit_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        actor TEXT NOT NULL,
        kind TEXT NOT NULL,
        approval_id TEXT,
        conversation_id TEXT,
        data_json TEXT NOT NULL DEFAULT '{}',
        previous_hash TEXT,
        hash TEXT
      );
      CREATE TRIGGER audit_events_chain AFTER INSERT ON audit_events
      BEGIN
        UPDATE audit_events SET
          previous_hash = (SELECT hash FROM audit_events WHERE id < NEW.id ORDER BY id DESC LIMIT 1),
          hash = holdfast_audit_hash(
            (SELECT hash FROM audit_events WHERE id < NEW.id ORDER BY id DESC LIMIT 1),
            NEW.id, NEW.at, NEW.actor, NEW.kind, NEW.approval_id, NEW.conversation_id, NEW.data_json)
        WHERE id = NEW.id;
      END;
      INSERT INTO audit_events (id, at, actor, kind, approval_id, conversation_id, data_json)
        SELECT id, at, actor, kind, approval_id, conversation_id, data_json
        FROM audit_events_unchained ORDER BY id;
      DROP TABLE audit_events_unchained;
      CREATE INDEX audit_by_approval ON audit_events (approval_id) WHERE approval_id IS NOT NULL;
      CREATE INDEX audit_by_conversation ON audit_events (conversation_id, id);
      CREATE INDEX audit_by_time ON audit_events (at);
    `,
  },
  {
    version: 5,
    description: 'live messages: where a running turn shows its progress',
    sql: `
      -- The message a running turn streams into (decoration, not fenced); its answer replaces it.
      CREATE TABLE live_messages (
        turn_id TEXT PRIMARY KEY,
        channel TEXT NOT NULL,
        ts TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('stream', 'message')),
        owner TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 6,
    description: 'reasons for decisions; grants narrowed by argument patterns, expiring, with a use limit',
    // No older release may run on it (the floor is this version): an older release reads any grant as
    // "the whole tool, forever", so a pattern grant would widen under it.
    sql: `
      -- What the person who denied a request said, for the model and the thread.
      ALTER TABLE approvals ADD COLUMN decision_reason TEXT;

      -- A grant covers the calls whose named arguments match these globs (a JSON object of argument name to
      -- pattern); NULL covers every call of the tool, as grants of earlier schemas did.
      ALTER TABLE grants ADD COLUMN match_json TEXT;
      -- Set for a grant of one exact call: it covers calls with these very arguments and nothing else.
      ALTER TABLE grants ADD COLUMN args_hash TEXT;
      ALTER TABLE grants ADD COLUMN expires_at INTEGER;
      -- NULL: no limit. Counted down by each call that runs under the grant; 0 is used up.
      ALTER TABLE grants ADD COLUMN uses_left INTEGER;
      -- Several grants of one tool may stand side by side now, each for its own pattern.
      DROP INDEX grants_active;
      CREATE INDEX grants_by_scope ON grants (scope, scope_id, tool_name) WHERE revoked_at IS NULL;
    `,
  },
];

export const latestSchemaVersion = migrations.at(-1)?.version ?? 0;
