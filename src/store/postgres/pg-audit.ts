import { type AuditRow, toAuditEvent } from '../row-mappers.js';
import type { AuditStore } from '../store.js';
import { insertAuditRow } from './pg-audit-chain.js';
import { type PgContext, read, transaction } from './pg-context.js';

export function createPgAudit(context: PgContext): AuditStore {
  return {
    // A transaction, not one autocommitted statement: the row is chained under the chain's lock.
    async record(event) {
      await transaction(context, async (tx) => insertAuditRow(tx, event));
    },
    async list(filter = {}) {
      const rows = await read<AuditRow>(
        context,
        `SELECT * FROM audit_events
         WHERE ($1::text IS NULL OR approval_id = $1) AND ($2::text IS NULL OR conversation_id = $2)
           AND ($3::bigint IS NULL OR id > $3) AND ($4::bigint IS NULL OR at >= $4)
         ORDER BY id LIMIT $5`,
        [
          filter.approvalId ?? null,
          filter.conversationId ?? null,
          filter.afterId ?? null,
          filter.since ?? null,
          filter.limit ?? 1_000,
        ],
      );
      return rows.map(toAuditEvent);
    },
  };
}
