import type { Store } from '../store.js';
import { type OpenPostgresOptions, openPostgres, poolConfig } from './open-postgres.js';
import { createPgApprovals } from './pg-approvals.js';
import { createPgAudit } from './pg-audit.js';
import { type PgContext, read } from './pg-context.js';
import { createPgConversations } from './pg-conversations.js';
import { createPgGrants } from './pg-grants.js';
import { createPgInbound } from './pg-inbound.js';
import { createPgLiveMessages } from './pg-live-messages.js';
import { listenForWork } from './pg-notifications.js';
import { createPgOutbox } from './pg-outbox.js';
import { createPgTranscript } from './pg-transcript.js';
import { createPgTurns } from './pg-turns.js';

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
    inbound: createPgInbound(context),
    liveMessages: createPgLiveMessages(context),
    notices,
    async waiting() {
      const [counts] = await read<{ pending_approvals: number; pending_deliveries: number; queued: number }>(
        context,
        `SELECT (SELECT count(*) FROM approvals WHERE resolved_at IS NULL)::int AS pending_approvals,
           (SELECT count(*) FROM outbox WHERE status = 'pending')::int AS pending_deliveries,
           (SELECT count(*) FROM turns WHERE status = 'queued')::int AS queued`,
      );
      return {
        pendingApprovals: counts?.pending_approvals ?? 0,
        pendingDeliveries: counts?.pending_deliveries ?? 0,
        queuedTurns: counts?.queued ?? 0,
      };
    },
    close() {
      closing ??= Promise.all([notices.close(), pool.end()]).then(() => undefined);
      return closing;
    },
  };
}
