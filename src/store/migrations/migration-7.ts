import type { Migration } from './migration.js';

export const migration7: Migration = {
  version: 7,
  description: 'messages kept between their acknowledgement and their turn',
  // An older release ignores the table: a message kept here and not yet a turn is then left unanswered,
  // which is what rolling back while one was in flight meant before.
  compatibleFrom: 6,
  sql: `
      -- A message acknowledged to Slack before it became a turn; deleted once it is one (see InboundStore).
      CREATE TABLE inbound_messages (
        key TEXT PRIMARY KEY,
        lane TEXT NOT NULL,
        payload_json TEXT NOT NULL,
        received_at INTEGER NOT NULL
      );
    `,
};
