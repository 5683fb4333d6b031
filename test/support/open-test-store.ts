import type Database from 'better-sqlite3';
import { onTestFinished } from 'vitest';
import { type OpenDatabaseOptions, openDatabase } from '../../src/store/open-database.js';
import { createSqliteStore } from '../../src/store/sqlite/create-sqlite-store.js';
import type { Store } from '../../src/store/store.js';

export interface TestStore {
  readonly db: Database.Database;
  readonly store: Store;
  readonly file: string;
}

/** The real SQLite store on `file`, closed when the test finishes. Call it inside a test. */
export function openTestStore(
  file: string,
  options: OpenDatabaseOptions & { readonly now?: () => number } = {},
): TestStore {
  const db = openDatabase(file, options);
  const store = createSqliteStore(db, { now: options.now });
  onTestFinished(() => store.close());
  return { db, store, file };
}
