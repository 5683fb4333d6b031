import type { Store } from '../store.js';
import { type OpenPostgresOptions, openPostgres, poolConfig } from './open-postgres.js';
import { createPgApprovals } from './pg-approvals.js';
import { createPgAudit } from './pg-audit.js';
import type { PgContext } from './pg-context.js';
import { createPgGrants } from './pg-grants.js';
import { listenForWork } from './pg-notifications.js';
import { createPgOutbox } from './pg-outbox.js';
import { createPgTranscript } from './pg-transcript.js';
import { createPgConversations, createPgTurns } from './pg-turns.js';

export interface PostgresStoreOptions extends OpenPostgresOptions {
  /** Tests pass their fake clock; production leaves it out and every lease follows the server's clock. */
  readonly clock?: () => number;
  /** Called after each commit (the benchmark counts them). */
  readonly onCommit?: () => void;
}

/**
 * The Store on a PostgreSQL server, shared by any number of holdfast processes. Loaded with a dynamic
 * import only when HOLDFAST_DB is a postgres:// URL.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<Store> {
  const pool = await openPostgres(options);
  const context: PgContext = { pool, clock: options.clock, onCommit: options.onCommit };
  const notices = listenForWork(poolConfig(options), { onError: options.onError });
  await notices.ready;
  let closing: Promise<void> | undefined;
  return {
    conversations: createPgConversations(context),
    turns: createPgTurns(context),
    transcript: createPgTranscript(context),
    approvals: createPgApprovals(context),
    grants: createPgGrants(context),
    audit: createPgAudit(context),
    outbox: createPgOutbox(context),
    notices,
    close() {
      closing ??= Promise.all([notices.close(), pool.end()]).then(() => undefined);
      return closing;
    },
  };
}
