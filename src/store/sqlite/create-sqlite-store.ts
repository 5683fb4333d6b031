import type Database from 'better-sqlite3';
import type { Store } from '../store.js';
import { attachDeferredWrites, DeferredWrites } from './deferred-writes.js';
import { createSqliteApprovals } from './sqlite-approvals.js';
import { createSqliteAudit } from './sqlite-audit.js';
import { flushWrites, writeTransactionNow } from './sqlite-context.js';
import { createSqliteGrants } from './sqlite-grants.js';
import { createSqliteLiveMessages } from './sqlite-live-messages.js';
import { createSqliteOutbox } from './sqlite-outbox.js';
import { createSqliteTranscript } from './sqlite-transcript.js';
import { createSqliteConversations, createSqliteTurns } from './sqlite-turns.js';

export interface SqliteStoreOptions {
  readonly now?: () => number;
  /** How long a deferred write (a delivery marker) waits for another commit to ride along in. */
  readonly deferredFlushMs?: number;
  /** Told when deferred writes could not be committed yet (they are retried until they are). */
  readonly onDeferredFailure?: (error: unknown) => void;
}

/** The Store over an opened (and migrated) better-sqlite3 database; see `openDatabase`. */
export function createSqliteStore(db: Database.Database, options: SqliteStoreOptions = {}): Store {
  const context = { db, now: options.now ?? Date.now };
  const flush = writeTransactionNow(db, () => undefined);
  const deferred = new DeferredWrites(options.deferredFlushMs ?? 25, () => {
    try {
      if (db.open) flush();
    } catch (error) {
      // Left queued: the next commit, or the next flush, carries them.
      options.onDeferredFailure?.(error);
    }
  });
  attachDeferredWrites(db, deferred);
  return {
    conversations: createSqliteConversations(context),
    turns: createSqliteTurns(context),
    transcript: createSqliteTranscript(context),
    approvals: createSqliteApprovals(context),
    grants: createSqliteGrants(context),
    audit: createSqliteAudit(context),
    outbox: createSqliteOutbox(context),
    liveMessages: createSqliteLiveMessages(context),
    close() {
      // What is still waiting commits now rather than being left to a sweep's reconciliation.
      if (db.open) flushWrites(db);
      if (db.open && deferred.size > 0) {
        try {
          flush();
        } catch (error) {
          deferred.abandon(error);
        }
      }
      if (db.open) db.close();
    },
  };
}
