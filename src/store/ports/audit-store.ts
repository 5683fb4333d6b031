import type { AuditEvent, AuditKind } from '../records.js';

export interface NewAuditEvent {
  readonly actor: string;
  readonly kind: AuditKind;
  readonly approvalId?: string | null;
  readonly conversationId?: string | null;
  readonly data?: Record<string, unknown>;
}

export interface AuditFilter {
  readonly approvalId?: string;
  readonly conversationId?: string;
  /** Only rows with a larger id: pages through the whole trail (export, verify). */
  readonly afterId?: number;
  /** Only rows recorded at or after this time (epoch ms). */
  readonly since?: number;
  readonly limit?: number;
}

/**
 * The audit trail. Every adapter chains rows as it inserts them, in the same transaction and one writer
 * at a time: `previousHash` is the hash of the row with the next lower id, `hash` is `auditRowHash`
 * (rules/audit-chain.ts) over the row and `previousHash`.
 */
export interface AuditStore {
  record(event: NewAuditEvent): Promise<void>;
  /** Oldest first. */
  list(filter?: AuditFilter): Promise<AuditEvent[]>;
}
