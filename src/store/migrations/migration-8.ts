import type { Migration } from './migration.js';

export const migration8: Migration = {
  version: 8,
  description: 'one message may be a card of several requests (a plan of calls that wait together)',
  // No older release may run on it: its inserts name the old key (channel, ts) in ON CONFLICT.
  sql: `
      -- A plan's card lists every call of one assistant message that waits for a person: the message is
      -- a card of each of their requests, so a card is keyed by its request as well.
      CREATE TABLE approval_cards_next (
        channel TEXT NOT NULL,
        ts TEXT NOT NULL,
        request_id TEXT NOT NULL REFERENCES approvals(request_id),
        posted_at INTEGER NOT NULL,
        PRIMARY KEY (channel, ts, request_id)
      );
      INSERT INTO approval_cards_next (channel, ts, request_id, posted_at)
        SELECT channel, ts, request_id, posted_at FROM approval_cards ORDER BY rowid;
      DROP TABLE approval_cards;
      ALTER TABLE approval_cards_next RENAME TO approval_cards;
      CREATE INDEX approval_cards_by_request ON approval_cards (request_id);
    `,
};
