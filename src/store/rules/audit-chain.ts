import { createHash } from 'node:crypto';

/**
 * The fields of an audit row that its hash covers: everything the row says, its id (so a removed row
 * leaves a visible gap between links) and the hash of the row before it.
 */
export interface ChainedAuditFields {
  readonly id: number;
  readonly at: number;
  readonly actor: string;
  readonly kind: string;
  readonly approvalId: string | null;
  readonly conversationId: string | null;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The chaining rule every store adapter applies, in the transaction that inserts the row: the row's hash
 * is SHA-256 over the canonical JSON of its fields and the previous row's hash (null for the first row).
 * Canonical JSON (sorted keys, no whitespace) makes the hash independent of how a database returns the
 * data column (PostgreSQL's jsonb reorders keys).
 */
export function auditRowHash(previousHash: string | null, row: ChainedAuditFields): string {
  const fields = {
    id: row.id,
    at: row.at,
    actor: row.actor,
    kind: row.kind,
    approvalId: row.approvalId,
    conversationId: row.conversationId,
    data: row.data,
    previousHash,
  };
  return createHash('sha256').update(canonicalJson(fields)).digest('hex');
}

/** JSON with object keys sorted at every level and `undefined` members left out, as JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
