import type { Migration } from './migration.js';

export const migration4: Migration = {
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
};
