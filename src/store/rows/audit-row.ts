import { z } from 'zod';
import type { AuditEvent, AuditKind } from '../records.js';
import { StoredRowInvalidError } from '../store-errors.js';
import { parseJsonColumn } from './parse-json-column.js';

export interface AuditRow {
  id: number;
  at: number;
  actor: string;
  kind: AuditKind;
  approval_id: string | null;
  conversation_id: string | null;
  data_json: string;
  previous_hash: string | null;
  hash: string | null;
}

const dataSchema = z.record(z.string(), z.unknown());

/** Every stored audit row is chained (see `auditRowHash`); one without its hash was written around it. */
export const toAuditEvent = (row: AuditRow): AuditEvent => {
  const where = { table: 'audit_events', key: String(row.id) };
  if (row.hash === null) throw new StoredRowInvalidError(where.table, where.key, 'the row has no hash');
  return {
    id: row.id,
    at: row.at,
    actor: row.actor,
    kind: row.kind,
    approvalId: row.approval_id,
    conversationId: row.conversation_id,
    data: parseJsonColumn(dataSchema, row.data_json, where),
    previousHash: row.previous_hash,
    hash: row.hash,
  };
};
