import type Database from 'better-sqlite3';
import type { Store } from '../store.js';
import { createSqliteApprovals } from './sqlite-approvals.js';
import { createSqliteAudit } from './sqlite-audit.js';
import { createSqliteGrants } from './sqlite-grants.js';
import { createSqliteOutbox } from './sqlite-outbox.js';
import { createSqliteTranscript } from './sqlite-transcript.js';
import { createSqliteConversations, createSqliteTurns } from './sqlite-turns.js';

export interface SqliteStoreOptions {
  readonly now?: () => number;
}

/** The Store over an opened (and migrated) better-sqlite3 database; see `openDatabase`. */
export function createSqliteStore(db: Database.Database, options: SqliteStoreOptions = {}): Store {
  const context = { db, now: options.now ?? Date.now };
  return {
    conversations: createSqliteConversations(context),
    turns: createSqliteTurns(context),
    transcript: createSqliteTranscript(context),
    approvals: createSqliteApprovals(context),
    grants: createSqliteGrants(context),
    audit: createSqliteAudit(context),
    outbox: createSqliteOutbox(context),
    close() {
      if (db.open) db.close();
    },
  };
}
