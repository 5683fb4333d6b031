import type { Migration } from './migration.js';

export const migration5: Migration = {
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
};
