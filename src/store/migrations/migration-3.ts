import type { Migration } from './migration.js';

export const migration3: Migration = {
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
};
