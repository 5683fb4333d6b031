import type Database from 'better-sqlite3';
import { sqliteCode } from '../open-database.js';
import { type TurnHolderRow, toTurnHolder } from '../rows/turn-row.js';
import { checkHolder, type TurnHolder } from '../rules/turn-writes.js';
import type { Fence } from '../store.js';
import { StoreBusyError, StoreStoppedError, StoreUnavailableError } from '../store-errors.js';
import { outboxCommitNoticesOf } from './outbox-commit-notices.js';

export { parseJsonColumn } from '../row-mappers.js';

export interface SqliteContext {
  readonly db: Database.Database;
  readonly now: () => number;
}

/**
 * Runs `work` in a `BEGIN IMMEDIATE` transaction: read-then-write sequences take the write lock up front,
 * so two processes cannot both read "pending" and both write "decided". With `synchronous=FULL` the
 * commit returns once it is on disk, so the promise resolves only then.
 */
export function writeTransaction<Args extends unknown[], Result>(
  db: Database.Database,
  work: (...args: Args) => Result,
): (...args: Args) => Promise<Result> {
  const transaction = db.transaction(work);
  return async (...args) => commitWrite(db, () => transaction.immediate(...args));
}

/** The same for a write made once, not prepared: `run` goes in a transaction of its own. */
export async function runWrite<Result>(db: Database.Database, run: () => Result): Promise<Result> {
  return writeTransaction(db, run)();
}

/**
 * A write that failed on disk (SQLite's I/O errors, a failed fsync among them) stops all writing for
 * good. What the disk kept of it is unknown, and Linux may drop pages it could not write and report it
 * once: a later commit that succeeds could sit behind a hole that recovery stops at, reported kept and
 * then lost. So, as PostgreSQL does, nothing more is written; a restart recovers from what the disk holds.
 */
const stopped = new WeakMap<Database.Database, StoreStoppedError>();

/** The failed write that stopped writing on `db`, once there is one. */
export function writesStopped(db: Database.Database): StoreStoppedError | undefined {
  return stopped.get(db);
}

function commitWrite<Result>(db: Database.Database, commit: () => Result): Result {
  const refusal = stopped.get(db);
  if (refusal) throw refusal;
  const notices = outboxCommitNoticesOf(db);
  try {
    const result = translateBusy(commit);
    notices.settle(true);
    return result;
  } catch (error) {
    notices.settle(false);
    if (!(error instanceof StoreUnavailableError) || !error.reason.startsWith('SQLITE_IOERR')) throw error;
    const stop = new StoreStoppedError(error.reason, { cause: error.cause });
    stopped.set(db, stop);
    throw stop;
  }
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

/** Reads who holds a turn, for its fence to be checked against (`checkHolder`). */
export function prepareHolderRead({ db }: SqliteContext): (turnId: string) => TurnHolder | undefined {
  const holder = db.prepare<[string], TurnHolderRow>(
    'SELECT conversation_id, status, lease_owner, lease_token FROM turns WHERE id = ?',
  );
  return (turnId) => toTurnHolder(holder.get(turnId));
}

/**
 * The fence every write made for a turn passes first, inside its transaction: the turn must still be
 * running under this exact claim. A process whose lease was taken over gets LeaseLostError and writes
 * nothing (invariant 6).
 */
export function prepareFenceCheck(
  context: SqliteContext,
): (fence: Fence) => { readonly conversationId: string } {
  const holderOf = prepareHolderRead(context);
  return (fence) => checkHolder(holderOf(fence.turnId), fence);
}
