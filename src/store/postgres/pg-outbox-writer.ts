import type { NewOutboxEntry } from '../outbox-message.js';
import type { OutboxRow } from '../row-mappers.js';
import { type OutboxInsert, planOutboxWrite } from '../rules/plan-outbox.js';
import type { Tx } from './pg-context.js';

/**
 * Writes outbox rows inside a caller's transaction: the effect commits with the state change that causes
 * it, or not at all. A key already written is left alone (ON CONFLICT DO NOTHING), so a retried state
 * change, or the same change racing on two replicas, posts nothing twice.
 */
export function writeOutbox(tx: Tx, entries: readonly NewOutboxEntry[]): void {
  insertOutboxRows(tx, planOutboxWrite(entries, tx.now));
}

/** The rows a plan inserts, sent with the transaction's next answered statement. */
export function insertOutboxRows(tx: Tx, rows: readonly OutboxInsert[]): void {
  for (const row of rows) tx.later(insertSql, insertValues(row));
}

/** The same, waiting for the rows written (an entry already written gives none). */
export async function writeOutboxReturning(tx: Tx, entries: readonly NewOutboxEntry[]): Promise<OutboxRow[]> {
  const rows: OutboxRow[] = [];
  for (const insert of planOutboxWrite(entries, tx.now)) {
    const row = await tx.one<OutboxRow>(`${insertSql} RETURNING *`, insertValues(insert));
    if (row) rows.push(row);
  }
  return rows;
}

const insertSql = `INSERT INTO outbox (key, conversation_id, turn_id, request_id, message_json, next_attempt_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (key) DO NOTHING`;

function insertValues(row: OutboxInsert): unknown[] {
  return [
    row.key,
    row.conversationId,
    row.turnId,
    row.requestId,
    row.messageJson,
    row.nextAttemptAt,
    row.createdAt,
  ];
}
