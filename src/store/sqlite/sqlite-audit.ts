import { type AuditRow, toAuditEvent } from '../row-mappers.js';
import type { AuditStore, NewAuditEvent } from '../store.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

export function createSqliteAudit({ db, now }: SqliteContext): AuditStore {
  // Rows are chained by the trigger of schema 4 (see migrations.ts), whichever statement inserts them.
  const insert = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
     VALUES (@at, @actor, @kind, @approvalId, @conversationId, @data)`,
  );
  // `LIMIT +@limit`: SQLite compiles a bare bound LIMIT's value into the plan, so it would recompile every run.
  const select = db.prepare<
    {
      approvalId: string | null;
      conversationId: string | null;
      afterId: number;
      since: number | null;
      limit: number;
    },
    AuditRow
  >(
    `SELECT * FROM audit_events
     WHERE id > @afterId
       AND (@approvalId IS NULL OR approval_id = @approvalId)
       AND (@conversationId IS NULL OR conversation_id = @conversationId)
       AND (@since IS NULL OR at >= @since)
     ORDER BY id LIMIT +@limit`,
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
        afterId: filter.afterId ?? 0,
        since: filter.since ?? null,
        limit: filter.limit ?? 1_000,
      });
      return rows.map(toAuditEvent);
    },
  };
}
