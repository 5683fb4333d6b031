import type Database from 'better-sqlite3';
import { z } from 'zod';
import { sqliteCode } from '../open-database.js';
import { StoreBusyError, StoredRowInvalidError } from '../store-errors.js';

export interface SqliteContext {
  readonly db: Database.Database;
  readonly now: () => number;
}

/**
 * Runs `work` as one `BEGIN IMMEDIATE` transaction: read-then-write sequences take the write lock up
 * front, so two processes cannot both read "pending" and both write "decided".
 */
export function writeTransaction<Args extends unknown[], Result>(
  db: Database.Database,
  work: (...args: Args) => Result,
): (...args: Args) => Result {
  const transaction = db.transaction(work);
  return (...args) => translateBusy(() => transaction.immediate(...args));
}

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
    throw error;
  }
}

/** Parses a JSON column with its schema; a bad row is an error naming the row, never a silent default. */
export function parseJsonColumn<Schema extends z.ZodType>(
  schema: Schema,
  text: string,
  where: { table: string; key: string },
): z.output<Schema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StoredRowInvalidError(
      where.table,
      where.key,
      error instanceof Error ? error.message : 'bad JSON',
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new StoredRowInvalidError(where.table, where.key, z.prettifyError(parsed.error));
  return parsed.data;
}
