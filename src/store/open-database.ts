import { statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { checkPagesNow } from './check-pages.js';
import { migrations as allMigrations, latestSchemaVersion, type Migration } from './migrations.js';
import { registerAuditHash } from './sqlite/audit-chain-function.js';
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
  /**
   * `now` (the default) reads every page before returning; `skip` leaves it to the caller, who runs
   * `checkPagesInBackground` on a file too big to check before serving.
   */
  readonly pageCheck?: 'now' | 'skip';
  /** For migration tests: stop at this version. */
  readonly migrations?: readonly Migration[];
}

/** The page size holdfast creates its files with (the benchmarks give their peers the same). */
export const newFilePageSize = 1024;

/** Well above what a busy bot writes between two checkpoints (a few MiB), so steady work never trims it. */
const walSizeLimitBytes = 64 * 1024 * 1024;

/**
 * Opens (creating if needed) holdfast's SQLite file, sets pragmas explicitly on every open and migrates
 * it in place. Any reason the file cannot be used stops here with an error naming the file.
 */
export function openDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  const migrations = options.migrations ?? allMigrations;
  refuseEmptyFile(file);
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
    // Takes effect on a new file only (a file's page size is fixed by its first write). holdfast writes
    // small rows across a dozen b-trees, and a commit rewrites a whole page per b-tree it touches: 1 KiB
    // pages log and fsync about a third of the bytes 4 KiB pages do for the same cycle (npm run bench).
    db.pragma(`page_size = ${newFilePageSize}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (file !== ':memory:' && String(mode).toLowerCase() !== 'wal') {
      throw new DatabaseUnreadableError(file, `could not switch to WAL journal mode (got ${String(mode)})`);
    }
    // A log that grew through a burst (or behind a long reader) goes back to this size when it next
    // restarts, instead of keeping its largest size on disk until holdfast stops.
    db.pragma(`journal_size_limit = ${walSizeLimitBytes}`);
    // FULL fsyncs the WAL inside every COMMIT: a write's promise resolves only once it is on disk, so
    // nothing anyone sees (an acknowledgement, a tool run, a card) gets ahead of what was kept. SQLite
    // checkpoints the log itself (every 1,000 pages).
    db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    // Table rebuilds in migrations must not trip foreign keys half way; they are checked afterwards.
    db.pragma('foreign_keys = OFF');
    if (file !== ':memory:' && options.pageCheck !== 'skip') checkPagesNow(db, file);
    registerAuditHash(db);
    migrate(db, file, migrations);
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db.close();
    throw classifyOpenError(file, error);
  }
}

/**
 * SQLite happily treats an empty file as a new database; where holdfast's data should be, an empty file
 * means it was truncated or replaced, and starting afresh would silently forget every pending approval.
 */
function refuseEmptyFile(file: string): void {
  if (file === ':memory:') return;
  let size: number;
  try {
    size = statSync(file).size;
  } catch {
    return; // not there yet: a new database is created
  }
  if (size === 0) {
    throw new DatabaseCorruptError(
      file,
      'the file is empty (0 bytes), so its data is gone; holdfast will not start afresh on top of it',
    );
  }
}

function migrate(db: Database.Database, file: string, migrations: readonly Migration[]): void {
  const target = Math.max(migrations.at(-1)?.version ?? 0, latestSchemaVersion);
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current > target) {
    // A newer release migrated this file; it may declare that releases as old as this one still fit.
    const floor = compatibilityFloor(db) ?? current;
    if (floor > target) throw new DatabaseTooNewError(file, current, target);
    takeWriteLockOnce(db);
    return;
  }
  const pending = migrations.filter((migration) => migration.version > current);
  if (pending.length === 0) {
    takeWriteLockOnce(db);
    return;
  }
  const apply = db.transaction(() => {
    // Another process may have migrated between our read and the write lock: read again under the lock.
    const locked = Number(db.pragma('user_version', { simple: true }));
    for (const migration of pending) {
      if (migration.version <= locked) continue;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
      recordCompatibilityFloor(db, migration.compatibleFrom ?? migration.version);
    }
    const violations = db.pragma('foreign_key_check') as unknown[];
    if (violations.length > 0) {
      throw new DatabaseCorruptError(file, `${violations.length} foreign key violations after migration`);
    }
  });
  apply.immediate();
}

/** Taken once, so a file held by another writer fails now, not on the first click. */
function takeWriteLockOnce(db: Database.Database): void {
  db.prepare('BEGIN IMMEDIATE').run();
  db.prepare('ROLLBACK').run();
}

const floorKey = 'compatible_from_schema';

function compatibilityFloor(db: Database.Database): number | undefined {
  const hasMeta = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'holdfast_meta'")
    .get();
  if (!hasMeta) return undefined;
  const row = db
    .prepare<[string], { value: string }>('SELECT value FROM holdfast_meta WHERE key = ?')
    .get(floorKey);
  const floor = row ? Number(row.value) : Number.NaN;
  return Number.isInteger(floor) ? floor : undefined;
}

function recordCompatibilityFloor(db: Database.Database, floor: number): void {
  const hasMeta = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'holdfast_meta'")
    .get();
  if (!hasMeta) return;
  db.prepare(
    'INSERT INTO holdfast_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(floorKey, String(floor));
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
