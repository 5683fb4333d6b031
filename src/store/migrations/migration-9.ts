import type { Migration } from './migration.js';

export const migration9: Migration = {
  version: 9,
  description: 'the SQLite schema holds what the PostgreSQL one has held from its start',
  // Nothing a release of version 8 reads or writes changes: the columns dropped were unread since version 3.
  compatibleFrom: 8,
  sql: `
      -- Found by comparing the two engines' schemas (schema-parity.postgres.test.ts).
      -- A thread has at most one turn at work: held by the schema as well as by the code that claims.
      CREATE UNIQUE INDEX turns_one_active_per_conversation ON turns (conversation_id)
        WHERE status IN ('running', 'awaiting_approval');
      -- Decided requests are read newest first.
      CREATE INDEX approvals_decided ON approvals (resolved_at) WHERE resolved_at IS NOT NULL;
      -- The seed schema's card columns, unread since version 3 moved cards to approval_cards.
      DROP INDEX IF EXISTS approvals_without_card;
      ALTER TABLE approvals DROP COLUMN card_channel;
      ALTER TABLE approvals DROP COLUMN card_ts;
    `,
};
