import type Database from 'better-sqlite3';
import type { Store, WaitingWork } from '../store.js';
import { attachDeferredWrites, DeferredWrites } from './deferred-writes.js';
import { createSqliteApprovals } from './sqlite-approvals.js';
import { createSqliteAudit } from './sqlite-audit.js';
import { flushWrites, writeTransactionNow } from './sqlite-context.js';
import { createSqliteConversations } from './sqlite-conversations.js';
import { createSqliteGrants } from './sqlite-grants.js';
import { createSqliteInbound } from './sqlite-inbound.js';
import { createSqliteLiveMessages } from './sqlite-live-messages.js';
import { createSqliteOutbox } from './sqlite-outbox.js';
import { createSqliteTranscript } from './sqlite-transcript.js';
import { createSqliteTurns } from './sqlite-turns.js';
import { walCheckpointerOf } from './wal-checkpointer.js';
import { walSyncOf } from './wal-sync.js';

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
  // Each count reads a partial index of open rows, so its cost follows the work waiting, not the history.
  const waiting = db.prepare<[], WaitingWork>(
    `SELECT (SELECT count(*) FROM approvals WHERE resolved_at IS NULL) AS pendingApprovals,
       (SELECT count(*) FROM outbox WHERE status = 'pending') AS pendingDeliveries,
       -- The IN list lets SQLite use turns_open rather than count every turn ever stored.
       (SELECT count(*) FROM turns WHERE status IN ('queued', 'running', 'awaiting_approval')
          AND status = 'queued') AS queuedTurns`,
  );
  // A failed WAL sync (see WalSync): only a restart clears it.
  const fault = () => walSyncOf(db)?.failure;
  return {
    conversations: createSqliteConversations(context),
    turns: createSqliteTurns(context),
    transcript: createSqliteTranscript(context),
    approvals: createSqliteApprovals(context),
    grants: createSqliteGrants(context),
    audit: createSqliteAudit(context),
    outbox: createSqliteOutbox(context),
    fault,
    durable: () => walSyncOf(db)?.caughtUp() ?? Promise.resolve(),
    async waiting() {
      // The readiness probe's query: a process that may no longer write is not ready (see WalSync).
      const failure = fault();
      if (failure) throw failure;
      const counts = waiting.get();
      if (!counts) throw new Error('the counts query returned no row');
      return counts;
    },
    inbound: createSqliteInbound(context),
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
      if (db.open) walSyncOf(db)?.close();
      walCheckpointerOf(db)?.stop();
      if (db.open) db.close();
    },
  };
}
