import type Database from 'better-sqlite3';
import type { Store, WaitingWork } from '../store.js';
import { createSqliteApprovals } from './sqlite-approvals.js';
import { createSqliteAudit } from './sqlite-audit.js';
import { writesStopped } from './sqlite-context.js';
import { createSqliteConversations } from './sqlite-conversations.js';
import { createSqliteGrants } from './sqlite-grants.js';
import { createSqliteInbound } from './sqlite-inbound.js';
import { createSqliteLiveMessages } from './sqlite-live-messages.js';
import { createSqliteOutbox } from './sqlite-outbox.js';
import { createSqliteTranscript } from './sqlite-transcript.js';
import { createSqliteTurns } from './sqlite-turns.js';

export interface SqliteStoreOptions {
  readonly now?: () => number;
}

/** The Store over an opened (and migrated) better-sqlite3 database; see `openDatabase`. */
export function createSqliteStore(db: Database.Database, options: SqliteStoreOptions = {}): Store {
  const context = { db, now: options.now ?? Date.now };
  // Each count reads a partial index of open rows, so its cost follows the work waiting, not the history.
  const waiting = db.prepare<[], WaitingWork>(
    `SELECT (SELECT count(*) FROM approvals WHERE resolved_at IS NULL) AS pendingApprovals,
       (SELECT count(*) FROM outbox WHERE status = 'pending') AS pendingDeliveries,
       -- The IN list lets SQLite use turns_open rather than count every turn ever stored.
       (SELECT count(*) FROM turns WHERE status IN ('queued', 'running', 'awaiting_approval')
          AND status = 'queued') AS queuedTurns`,
  );
  // A write that failed on disk stopped all writing: only a restart clears it.
  const fault = () => writesStopped(db);
  return {
    conversations: createSqliteConversations(context),
    turns: createSqliteTurns(context),
    transcript: createSqliteTranscript(context),
    approvals: createSqliteApprovals(context),
    grants: createSqliteGrants(context),
    audit: createSqliteAudit(context),
    outbox: createSqliteOutbox(context),
    fault,
    async waiting() {
      // The readiness probe's query: a process that may no longer write is not ready (see `writesStopped`).
      const failure = fault();
      if (failure) throw failure;
      const counts = waiting.get();
      if (!counts) throw new Error('the counts query returned no row');
      return counts;
    },
    inbound: createSqliteInbound(context),
    liveMessages: createSqliteLiveMessages(context),
    close() {
      if (db.open) db.close();
    },
  };
}
