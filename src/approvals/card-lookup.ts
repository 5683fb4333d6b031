import type { Approval, ApprovalCard } from '../store/records.js';

/** What the chat service says of a message a click came from. */
export type CardLookupResult =
  /** A card or DM copy of the request, as holdfast posted it. */
  | 'card'
  /** Some other message, or none at all. */
  | 'not-a-card'
  /** The service could not be asked (down, rate limited): nothing can be concluded. */
  | 'unknown';

/**
 * Reads a message back from the chat service: how a click on a card whose `ts` a crash kept from the
 * database is told from a click that names a message no card of the request was ever posted as.
 */
export interface CardLookup {
  find(approval: Approval, card: ApprovalCard): Promise<CardLookupResult>;
}
