import { type AuditRow, toAuditEvent } from '../row-mappers.js';
import type { AuditStore } from '../store.js';
import { autocommit, type PgContext, read } from './pg-context.js';

export function createPgAudit(context: PgContext): AuditStore {
  return {
    async record(event) {
      await autocommit(context, (now) => ({
        text: `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
               VALUES (${now}, $1, $2, $3, $4, $5)`,
        values: [
          event.actor,
          event.kind,
          event.approvalId ?? null,
          event.conversationId ?? null,
          JSON.stringify(event.data ?? {}),
        ],
      }));
    },
    async list(filter = {}) {
      const rows = await read<AuditRow>(
        context,
        `SELECT * FROM audit_events
         WHERE ($1::text IS NULL OR approval_id = $1) AND ($2::text IS NULL OR conversation_id = $2)
         ORDER BY id LIMIT $3`,
        [filter.approvalId ?? null, filter.conversationId ?? null, filter.limit ?? 1_000],
      );
      return rows.map(toAuditEvent);
    },
  };
}
