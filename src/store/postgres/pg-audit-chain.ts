import { auditRowHash } from '../rules/audit-chain.js';
import type { Tx } from './pg-context.js';

/** One audit row as a PostgreSQL write makes it, inside its own transaction. */
export interface PgAuditInsert {
  readonly actor: string;
  readonly kind: string;
  readonly approvalId?: string | null;
  readonly conversationId?: string | null;
  readonly data?: Readonly<Record<string, unknown>>;
}

/**
 * The audit chain's own lock (the two-key form, apart from the threads' single-key locks and the
 * migration lock): held from before the row's id is drawn until commit, so rows from every replica
 * are chained in id order and no two rows name the same predecessor.
 */
const chainLock = 'SELECT pg_advisory_xact_lock(1752134756, 2)';

/**
 * Inserts an audit row chained to the one before it, with the rule every adapter applies
 * (`auditRowHash`), at the end of the caller's transaction: the chain's lock serialises every writer of
 * every replica, so it is taken after all the transaction's other locks and held only through COMMIT.
 */
export function insertAuditRow(tx: Tx, event: PgAuditInsert): void {
  tx.beforeCommit(() => chainRow(tx, event));
}

/** Each statement after the lock reads a fresh snapshot (read committed): the last row committed. */
async function chainRow(tx: Tx, event: PgAuditInsert): Promise<void> {
  tx.later(chainLock);
  // The id is drawn here, under the lock, so the row can be written whole with its hashes.
  const next = await tx.one<{ id: number; previous_hash: string | null }>(
    `SELECT nextval(pg_get_serial_sequence('audit_events', 'id')) AS id,
       (SELECT hash FROM audit_events ORDER BY id DESC LIMIT 1) AS previous_hash`,
  );
  if (!next) throw new Error('the audit sequence returned no id');
  const previousHash = next.previous_hash;
  const dataJson = JSON.stringify(event.data ?? {});
  const approvalId = event.approvalId ?? null;
  const conversationId = event.conversationId ?? null;
  // The hash covers the data as it will be read back, so the verifier computes the same value.
  const hash = auditRowHash(previousHash, {
    id: next.id,
    at: tx.now,
    actor: event.actor,
    kind: event.kind,
    approvalId,
    conversationId,
    data: JSON.parse(dataJson) as Record<string, unknown>,
  });
  tx.later(
    `INSERT INTO audit_events
       (id, at, actor, kind, approval_id, conversation_id, data_json, previous_hash, hash)
     OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [next.id, tx.now, event.actor, event.kind, approvalId, conversationId, dataJson, previousHash, hash],
  );
}
