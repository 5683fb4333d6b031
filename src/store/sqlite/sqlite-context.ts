import type Database from 'better-sqlite3';
import { sqliteCode } from '../open-database.js';
import type { Fence } from '../store.js';
import { LeaseLostError, StoreBusyError, StoreUnavailableError } from '../store-errors.js';
import { deferredWritesOf } from './deferred-writes.js';
import { outboxCommitNoticesOf } from './outbox-commit-notices.js';
import { walSyncOf } from './wal-sync.js';
import { batcherOf, type WriteRelease } from './write-batcher.js';

export { parseJsonColumn } from '../row-mappers.js';

export interface SqliteContext {
  readonly db: Database.Database;
  readonly now: () => number;
}

/**
 * Runs `work` in a `BEGIN IMMEDIATE` transaction: read-then-write sequences take the write lock up front,
 * so two processes cannot both read "pending" and both write "decided". Writes queued in the same turn
 * of the event loop share one commit (see WriteBatcher), each in its own savepoint: one that throws
 * changes nothing, and the others commit.
 *
 * The promise resolves once the commit is on disk, unless `resolve: 'at-commit'`: for a write whose
 * caller does nothing anyone outside sees before it commits something else and waits for that. The WAL
 * is one log, synced in order, so a later commit on disk means this one is too.
 */
export function writeTransaction<Args extends unknown[], Result>(
  db: Database.Database,
  work: (...args: Args) => Result,
  release: Pick<WriteRelease<Result>, 'resolve'> = {},
): (...args: Args) => Promise<Result> {
  const savepoint = db.transaction(work);
  return (...args) => queueWrite(db, () => savepoint(...args), release);
}

/** Queues one write for the next group commit; see `WriteBatcher.add` for when its caller hears of it. */
export function queueWrite<Result>(
  db: Database.Database,
  run: () => Result,
  release?: WriteRelease<Result>,
): Promise<Result> {
  return batcherOf(db, translateBusy).add(run, release);
}

/**
 * The same, committed at once and synchronously: for the few writes that cannot wait for the event loop
 * (closing the store).
 */
export function writeTransactionNow<Args extends unknown[], Result>(
  db: Database.Database,
  work: (...args: Args) => Result,
): (...args: Args) => Result {
  const deferred: { settle?: (committed: boolean) => void } = {};
  const transaction = db.transaction((...args: Args) => {
    deferred.settle = deferredWritesOf(db)?.runInside();
    return work(...args);
  });
  const settle = (committed: boolean) => {
    const settleDeferred = deferred.settle;
    deferred.settle = undefined;
    settleDeferred?.(committed);
  };
  return (...args) => {
    deferred.settle = undefined;
    const refusal = walSyncOf(db)?.failure;
    if (refusal) throw refusal;
    try {
      const result = translateBusy(() => transaction.immediate(...args));
      walSyncOf(db)?.noteCommit();
      settle(true);
      outboxCommitNoticesOf(db).settle(true);
      return result;
    } catch (error) {
      settle(false);
      outboxCommitNoticesOf(db).settle(false);
      throw error;
    }
  };
}

/** Commits whatever writes are queued for the next group commit, now. */
export function flushWrites(db: Database.Database): void {
  batcherOf(db, translateBusy).flush();
}

/**
 * Storage faults become typed errors callers can tell a person about and retry: a lock held too long,
 * a full disk, a read-only or failing file. Nothing was written when one of these is thrown.
 */
export function translateBusy<Result>(work: () => Result): Result {
  try {
    return work();
  } catch (error) {
    const code = sqliteCode(error);
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      throw new StoreBusyError('The database stayed locked past busy_timeout; nothing was written.', {
        cause: error,
      });
    }
    if (code && unavailable.some((prefix) => code.startsWith(prefix))) {
      throw new StoreUnavailableError(code, { cause: error });
    }
    throw error;
  }
}

const unavailable = ['SQLITE_FULL', 'SQLITE_READONLY', 'SQLITE_IOERR', 'SQLITE_CANTOPEN', 'SQLITE_CORRUPT'];

/**
 * The fence every write made for a turn passes first, inside its transaction: the turn must still be
 * running under this exact claim. A process whose lease was taken over gets LeaseLostError and writes
 * nothing (invariant 6).
 */
export function prepareFenceCheck({
  db,
}: SqliteContext): (fence: Fence) => { readonly conversationId: string } {
  const holder = db.prepare<
    [string],
    { status: string; lease_owner: string | null; lease_token: number; conversation_id: string }
  >('SELECT status, lease_owner, lease_token, conversation_id FROM turns WHERE id = ?');
  return (fence) => {
    const row = holder.get(fence.turnId);
    if (row?.status !== 'running' || row.lease_owner !== fence.owner || row.lease_token !== fence.token) {
      throw new LeaseLostError(fence.turnId);
    }
    return { conversationId: row.conversation_id };
  };
}
