import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createSqliteStore, openDatabase, type Store } from '../store/index.js';
import { redactPostgresUrl } from '../store/postgres/postgres-url.js';

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
): Promise<Store> {
  if (config.postgres) {
    const { openPostgresStore } = await import('../store/postgres/create-postgres-store.js');
    return openPostgresStore({
      url: config.postgres.url,
      poolSize: config.postgres.poolSize,
      clock: deps.clock,
      onError: (error) => {
        deps.logger.warn({ err: error }, 'a PostgreSQL connection failed; it will be replaced');
      },
    });
  }
  mkdirSync(path.dirname(config.databasePath), { recursive: true });
  const db = openDatabase(config.databasePath, { synchronous: config.synchronous });
  return createSqliteStore(db, {
    now: deps.now,
    onDeferredFailure: (error) => {
      deps.logger.warn({ err: error }, 'could not record delivered messages yet; retrying');
    },
  });
}

/** The database as logs and reports name it: the file, or the server's URL without its password. */
export function databaseLabel(config: Config): string {
  return config.postgres ? redactPostgresUrl(config.postgres.url) : config.databasePath;
}
