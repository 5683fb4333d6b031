import { type AuditRow, toAuditEvent } from '../row-mappers.js';
import type { AuditStore, NewAuditEvent } from '../store.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

export function createSqliteAudit({ db, now }: SqliteContext): AuditStore {
  const insert = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
     VALUES (@at, @actor, @kind, @approvalId, @conversationId, @data)`,
  );
  const select = db.prepare<
    { approvalId: string | null; conversationId: string | null; limit: number },
    AuditRow
  >(
    `SELECT * FROM audit_events
     WHERE (@approvalId IS NULL OR approval_id = @approvalId)
       AND (@conversationId IS NULL OR conversation_id = @conversationId)
     ORDER BY id LIMIT @limit`,
  );
  const record = writeTransaction(db, (event: NewAuditEvent) => {
    insert.run({
      at: now(),
      actor: event.actor,
      kind: event.kind,
      approvalId: event.approvalId ?? null,
      conversationId: event.conversationId ?? null,
      data: JSON.stringify(event.data ?? {}),
    });
  });
  return {
    record: async (event) => record(event),
    async list(filter = {}) {
      const rows = select.all({
        approvalId: filter.approvalId ?? null,
        conversationId: filter.conversationId ?? null,
        limit: filter.limit ?? 1_000,
      });
      return rows.map(toAuditEvent);
    },
  };
}
