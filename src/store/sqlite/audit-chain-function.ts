import type Database from 'better-sqlite3';
import { auditRowHash } from '../rules/audit-chain.js';

/** The SQL name of the chaining rule; the audit trigger (schema 4) calls it for every inserted row. */
const auditHashFunction = 'holdfast_audit_hash';

/**
 * Registers the chaining rule on a connection, before migrations run: the trigger that chains audit rows
 * calls it, so every writer of `audit_events` (approvals, grants, the outbox, the audit store) is chained
 * in the transaction that inserts the row, and a connection without it cannot insert unchained rows.
 */
export function registerAuditHash(db: Database.Database): void {
  db.function(
    auditHashFunction,
    { deterministic: true },
    (previousHash, id, at, actor, kind, approvalId, conversationId, dataJson) =>
      auditRowHash(previousHash === null ? null : String(previousHash), {
        id: Number(id),
        at: Number(at),
        actor: String(actor),
        kind: String(kind),
        approvalId: approvalId === null ? null : String(approvalId),
        conversationId: conversationId === null ? null : String(conversationId),
        data: JSON.parse(String(dataJson)) as Record<string, unknown>,
      }),
  );
}
