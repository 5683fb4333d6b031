import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createSqliteStore, openDatabase, type Store } from '../store/index.js';

/** The one place that picks the store adapter for the configured database. */
export async function openStore(
  config: Config,
  deps: { readonly now: () => number; readonly logger: Logger },
): Promise<Store> {
  mkdirSync(path.dirname(config.databasePath), { recursive: true });
  const db = openDatabase(config.databasePath, { synchronous: config.synchronous });
  return createSqliteStore(db, {
    now: deps.now,
    onDeferredFailure: (error) => {
      deps.logger.warn({ err: error }, 'could not record delivered messages yet; retrying');
    },
  });
}
