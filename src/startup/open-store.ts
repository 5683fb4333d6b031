import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { checkPagesInBackground, startupPageCheckLimitBytes } from '../store/check-pages.js';
import type { DatabaseCorruptError } from '../store/index.js';
import { createSqliteStore, openDatabase, type Store } from '../store/index.js';

export interface OpenedStore {
  readonly store: Store;
  /**
   * Damage found by the page check that runs after start-up on a large file (undefined when sound, or
   * when the file was checked before opening returned).
   */
  readonly damage: Promise<DatabaseCorruptError | undefined>;
}

/** The one place that picks the store adapter for the configured database. */
export async function openStore(
  config: Config,
  deps: { readonly now: () => number; readonly logger: Logger },
): Promise<OpenedStore> {
  mkdirSync(path.dirname(config.databasePath), { recursive: true });
  const large = fileSize(config.databasePath) > startupPageCheckLimitBytes;
  const db = openDatabase(config.databasePath, {
    synchronous: config.synchronous,
    pageCheck: large ? 'skip' : 'now',
  });
  const store = createSqliteStore(db, {
    now: deps.now,
    onDeferredFailure: (error) => {
      deps.logger.warn({ err: error }, 'could not record delivered messages yet; retrying');
    },
  });
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
