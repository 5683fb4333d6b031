import Database from 'better-sqlite3';
import { newFilePageSize, type SynchronousMode } from '../../src/store/open-database.js';

export interface PeerDatabaseOptions {
  readonly synchronous: SynchronousMode;
  /** `wal_autocheckpoint=0`, for the pass that counts WAL frames (see `readWalFrames`). */
  readonly keepWal?: boolean;
}

/** A file database with the pragmas holdfast's `openDatabase` sets, so every framework pays the same fsync. */
export function openPeerDatabase(file: string, options: PeerDatabaseOptions): Database.Database {
  const db = new Database(file, { timeout: 5_000 });
  db.pragma('busy_timeout = 5000');
  db.pragma(`page_size = ${newFilePageSize}`);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous}`);
  db.pragma('foreign_keys = ON');
  if (options.keepWal) db.pragma('wal_autocheckpoint = 0');
  return db;
}
