import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { checkPagesInBackground, startupPageCheckLimitBytes } from '../store/check-pages.js';
import type { DatabaseCorruptError } from '../store/index.js';
import { createSqliteStore, openDatabase, type Store } from '../store/index.js';
import { redactPostgresUrl } from '../store/postgres/postgres-url.js';

export interface OpenedStore {
  readonly store: Store;
  /**
   * Damage found by the page check that runs after start-up on a large SQLite file (undefined when
   * sound, or when the file was checked before opening returned).
   */
  readonly damage: Promise<DatabaseCorruptError | undefined>;
}

/**
 * The one place that picks the store adapter for the configured database. The PostgreSQL adapter (and
 * `pg` with it) is imported only when HOLDFAST_DB names a server, so SQLite users never load it.
 */
export async function openStore(
  config: Config,
  deps: {
    readonly now: () => number;
    readonly logger: Logger;
    /** Replaces the PostgreSQL server's clock for leases and timestamps (tests with a fake clock). */
    readonly clock?: () => number;
  },
): Promise<OpenedStore> {
  if (config.postgres) {
    const { openPostgresStore } = await import('../store/postgres/create-postgres-store.js');
    const store = await openPostgresStore({
      url: config.postgres.url,
      poolSize: config.postgres.poolSize,
      clock: deps.clock,
      onError: (error) => {
        deps.logger.warn({ err: error }, 'a PostgreSQL connection failed; it will be replaced');
      },
    });
    return { store, damage: Promise.resolve(undefined) };
  }
  mkdirSync(path.dirname(config.databasePath), { recursive: true });
  const large = fileSize(config.databasePath) > startupPageCheckLimitBytes;
  const db = openDatabase(config.databasePath, {
    synchronous: config.synchronous,
    pageCheck: large ? 'skip' : 'now',
  });
  const store = createSqliteStore(db, { now: deps.now });
  const damage = large
    ? checkPagesInBackground(config.databasePath).catch((error: unknown) => {
        deps.logger.warn({ err: error }, 'could not check the database pages');
        return undefined;
      })
    : Promise.resolve(undefined);
  return { store, damage };
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** The database as logs and reports name it: the file, or the server's URL without its password. */
export function databaseLabel(config: Config): string {
  return config.postgres ? redactPostgresUrl(config.postgres.url) : config.databasePath;
}
