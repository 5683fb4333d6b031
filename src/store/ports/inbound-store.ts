/**
 * Messages acknowledged to their sender before they became turns. Slack waits three seconds for an
 * acknowledgement and delivers again without one, but what a message becomes (its author's name, the
 * thread it was posted in) takes further calls to Slack. So a message is kept here first, acknowledged once
 * it is on disk, and made into a turn after; a process that dies in between leaves it for the next one.
 */
export interface InboundStore {
  /** Keeps a message until it is settled; false when one with this key is kept already. */
  keep(message: NewInboundMessage): Promise<boolean>;
  /** Nothing is left to do for the message: it became a turn, was refused, or was one already. */
  settle(key: string): Promise<void>;
  /** Messages kept before `receivedBefore` (ms since the epoch) and not settled, oldest first. */
  unsettled(options: { readonly receivedBefore: number; readonly limit: number }): Promise<InboundMessage[]>;
}

export interface NewInboundMessage {
  /** One per delivery that matters: Slack's retries of it carry the same key. */
  readonly key: string;
  /** The messages of one lane (a thread) become turns one at a time, in the order they were kept. */
  readonly lane: string;
  /** The message as its adapter reads it back; opaque to the store. */
  readonly payload: string;
}

export interface InboundMessage extends NewInboundMessage {
  readonly receivedAt: number;
}
