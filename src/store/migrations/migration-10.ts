import type { Migration } from './migration.js';

export const migration10: Migration = {
  version: 10,
  description: 'who stopped a turn is kept as data, not read back out of its error message',
  // A release of version 8 or 9 neither reads nor writes the column; a turn it stops has none, and is still
  // known as stopped by its error code.
  compatibleFrom: 8,
  sql: `
      ALTER TABLE turns ADD COLUMN stopped_by TEXT;
    `,
};
