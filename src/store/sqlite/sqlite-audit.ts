import { type AuditRow, toAuditEvent } from '../row-mappers.js';
import type { AuditStore, NewAuditEvent } from '../store.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

/** Writes an audit row inside a caller's transaction, so the event commits with what it records. */
export function prepareAuditInsert({ db }: SqliteContext): (event: NewAuditEvent, at: number) => void {
  // Rows are chained by the trigger of schema 4 (see migrations.ts), whichever statement inserts them.
  const insert = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
     VALUES (@at, @actor, @kind, @approvalId, @conversationId, @data)`,
  );
  return (event, at) => {
    insert.run({
      at,
      actor: event.actor,
      kind: event.kind,
      approvalId: event.approvalId ?? null,
      conversationId: event.conversationId ?? null,
      data: JSON.stringify(event.data ?? {}),
    });
  };
}

export function createSqliteAudit(context: SqliteContext): AuditStore {
  const { db, now } = context;
  const insert = prepareAuditInsert(context);
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
  const record = writeTransaction(db, (event: NewAuditEvent) => insert(event, now()));
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
