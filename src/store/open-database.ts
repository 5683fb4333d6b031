import Database from 'better-sqlite3';
import { migrations as allMigrations, latestSchemaVersion, type Migration } from './migrations.js';
import {
  DatabaseCorruptError,
  DatabaseLockedError,
  DatabaseOpenError,
  DatabaseTooNewError,
  DatabaseUnreadableError,
} from './store-errors.js';

export type SynchronousMode = 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';

export interface OpenDatabaseOptions {
  /**
   * FULL by default: an approval decision acknowledged to a human must survive power loss. NORMAL in WAL
   * mode is safe against corruption but may lose the last commits on power failure.
   */
  readonly synchronous?: SynchronousMode;
  readonly busyTimeoutMs?: number;
  /** For migration tests: stop at this version. */
  readonly migrations?: readonly Migration[];
}

/**
 * Opens (creating if needed) holdfast's SQLite file, sets pragmas explicitly on every open and migrates
 * it in place. Any reason the file cannot be used stops here with an error naming the file.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  const migrations = options.migrations ?? allMigrations;
  let db: Database.Database;
  try {
    db = new Database(file, { timeout: options.busyTimeoutMs ?? 5_000 });
  } catch (error) {
    throw new DatabaseUnreadableError(file, error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
  try {
    db.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5_000)}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (file !== ':memory:' && String(mode).toLowerCase() !== 'wal') {
      throw new DatabaseUnreadableError(file, `could not switch to WAL journal mode (got ${String(mode)})`);
    }
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    // Table rebuilds in migrations must not trip foreign keys half way; they are checked afterwards.
    db.pragma('foreign_keys = OFF');
    migrate(db, file, migrations);
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db.close();
    throw classifyOpenError(file, error);
  }
}

function migrate(db: Database.Database, file: string, migrations: readonly Migration[]): void {
  const target = migrations.at(-1)?.version ?? 0;
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current > Math.max(target, latestSchemaVersion)) {
    throw new DatabaseTooNewError(file, current, Math.max(target, latestSchemaVersion));
  }
  const pending = migrations.filter((migration) => migration.version > current);
  if (pending.length === 0) {
    // Still take the write lock once, so a file held by another writer fails now, not on the first click.
    db.prepare('BEGIN IMMEDIATE').run();
    db.prepare('ROLLBACK').run();
    return;
  }
  const apply = db.transaction(() => {
    for (const migration of pending) {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }
    const violations = db.pragma('foreign_key_check') as unknown[];
    if (violations.length > 0) {
      throw new DatabaseCorruptError(file, `${violations.length} foreign key violations after migration`);
    }
  });
  apply.immediate();
}

function classifyOpenError(file: string, error: unknown): DatabaseOpenError {
  if (error instanceof DatabaseOpenError) return error;
  const code = sqliteCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
    return new DatabaseLockedError(file, { cause: error });
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new DatabaseCorruptError(file, detail, { cause: error });
  }
  return new DatabaseUnreadableError(file, detail, { cause: error });
}

export function sqliteCode(error: unknown): string | undefined {
  if (error instanceof Database.SqliteError) return error.code;
  return undefined;
}
