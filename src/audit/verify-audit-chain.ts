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
  | { readonly type: 'unreadable'; readonly id: number; readonly detail: string }
  /** The anchored row is there with another hash: it, or a row before it, was rewritten and the chain recomputed. */
  | { readonly type: 'anchor-changed'; readonly id: number }
  /**
   * The anchored row is gone: the chain was relinked around it (`nextId`, the row now after it), or rows
   * were removed from the end of the trail (`nextId` null), which the chain alone cannot show.
   */
  | { readonly type: 'anchor-missing'; readonly id: number; readonly nextId: number | null };

/**
 * A row and its hash recorded earlier (the last row `verify` printed, or a row of an export) and kept
 * where holdfast cannot write: the trail must still hold that row with that hash.
 */
export interface AuditAnchor {
  readonly id: number;
  readonly hash: string;
}

/** `<row id>:<hash>`, as `verify` prints a trail's last row; undefined when the text is not one. */
export function parseAuditAnchor(text: string): AuditAnchor | undefined {
  const match = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim());
  return match ? { id: Number(match[1]), hash: match[2] as string } : undefined;
}

/** What an intact chain ends with: the last row and its hash, to compare with a copy held elsewhere. */
export interface AuditChainHead {
  readonly rows: number;
  readonly lastId: number | null;
  readonly lastHash: string | null;
}

/**
 * Follows the chain oldest first and stops at the first row that breaks it. Ids may skip (a PostgreSQL
 * sequence does on rollback); a skipped id counts as removal only where the links disagree too. What the
 * chain cannot show is rows removed from the end, or a chain rewritten and recomputed by someone who can
 * write to the database: an anchor held elsewhere (see `AuditAnchor`) shows both, up to its row.
 */
export class AuditChainVerifier {
  readonly #anchor: AuditAnchor | undefined;
  #anchorSeen = false;
  #previous: { readonly id: number; readonly hash: string } | undefined;
  #rows = 0;

  constructor(anchor?: AuditAnchor) {
    this.#anchor = anchor;
  }

  /** Checks the next row; returns the break, if this row is where the chain stops proving itself. */
  check(event: AuditEvent): AuditChainBreak | undefined {
    this.#rows += 1;
    if (auditRowHash(event.previousHash, event) !== event.hash) return { type: 'altered', id: event.id };
    const previous = this.#previous;
    this.#previous = { id: event.id, hash: event.hash };
    const link = this.#link(previous, event);
    if (link) return link;
    const anchor = this.#anchor;
    if (anchor === undefined || this.#anchorSeen || event.id < anchor.id) return undefined;
    this.#anchorSeen = true;
    if (event.id > anchor.id) return { type: 'anchor-missing', id: anchor.id, nextId: event.id };
    return event.hash === anchor.hash ? undefined : { type: 'anchor-changed', id: anchor.id };
  }

  /** After the last row: the break an anchor past the end of the trail shows, if any. */
  finish(): AuditChainBreak | undefined {
    const anchor = this.#anchor;
    if (anchor === undefined || this.#anchorSeen) return undefined;
    return { type: 'anchor-missing', id: anchor.id, nextId: null };
  }

  #link(
    previous: { readonly id: number; readonly hash: string } | undefined,
    event: AuditEvent,
  ): AuditChainBreak | undefined {
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
    case 'anchor-changed':
      return `audit row ${at.id} no longer has the anchor's hash: it, or a row before it, was rewritten and the chain recomputed`;
    case 'anchor-missing':
      return at.nextId === null
        ? `audit row ${at.id}, the anchor, is gone: rows were removed from the end of the trail`
        : `audit row ${at.id}, the anchor, is gone: the chain was relinked around it (row ${at.nextId} follows)`;
  }
}
