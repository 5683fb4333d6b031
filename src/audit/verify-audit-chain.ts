import type { AuditEvent } from '../store/records.js';
import { auditRowHash } from '../store/rules/audit-chain.js';

/** Where the chain first stops proving itself. */
export type AuditChainBreak =
  /** The row's fields no longer give its hash: it was edited after it was written. */
  | { readonly type: 'altered'; readonly id: number }
  /**
   * The row is intact but does not link to the row before it, and no id is missing between them: one of
   * the two was edited and its hash recomputed.
   */
  | { readonly type: 'relinked'; readonly id: number; readonly previousId: number }
  /** Rows are missing before `beforeId` (after `afterId`, or at the start of the trail). */
  | { readonly type: 'removed'; readonly afterId: number | null; readonly beforeId: number }
  /** The row cannot be read at all (its data is not the JSON that was written). */
  | { readonly type: 'unreadable'; readonly id: number; readonly detail: string };

/** What an intact chain ends with: the last row and its hash, to compare with a copy held elsewhere. */
export interface AuditChainHead {
  readonly rows: number;
  readonly lastId: number | null;
  readonly lastHash: string | null;
}

/**
 * Follows the chain oldest first and stops at the first row that breaks it. Ids may skip (a PostgreSQL
 * sequence does on rollback); a skipped id counts as removal only where the links disagree too. What the
 * chain cannot show is rows removed from the end: the exported trail (and its last hash) held elsewhere is
 * the anchor for that.
 */
export class AuditChainVerifier {
  #previous: { readonly id: number; readonly hash: string } | undefined;
  #rows = 0;

  /** Checks the next row; returns the break, if this row is where the chain stops proving itself. */
  check(event: AuditEvent): AuditChainBreak | undefined {
    this.#rows += 1;
    if (auditRowHash(event.previousHash, event) !== event.hash) return { type: 'altered', id: event.id };
    const previous = this.#previous;
    this.#previous = { id: event.id, hash: event.hash };
    if (previous === undefined) {
      return event.previousHash === null ? undefined : { type: 'removed', afterId: null, beforeId: event.id };
    }
    if (event.previousHash === previous.hash) return undefined;
    return event.id === previous.id + 1
      ? { type: 'relinked', id: event.id, previousId: previous.id }
      : { type: 'removed', afterId: previous.id, beforeId: event.id };
  }

  /** Rows checked so far. */
  get rows(): number {
    return this.#rows;
  }

  head(): AuditChainHead {
    return { rows: this.#rows, lastId: this.#previous?.id ?? null, lastHash: this.#previous?.hash ?? null };
  }
}

export function describeAuditChainBreak(at: AuditChainBreak): string {
  switch (at.type) {
    case 'altered':
      return `audit row ${at.id} was altered: its contents no longer match its hash`;
    case 'relinked':
      return `audit row ${at.id} does not follow row ${at.previousId}: row ${at.previousId} was altered and its hash recomputed (or row ${at.id}'s link was)`;
    case 'removed':
      return at.afterId === null
        ? `audit rows before row ${at.beforeId} were removed: the first row left links to a row that is gone`
        : `audit rows between row ${at.afterId} and row ${at.beforeId} were removed`;
    case 'unreadable':
      return `audit row ${at.id} was altered: ${at.detail}`;
  }
}
