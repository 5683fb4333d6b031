import { HoldfastError } from '../errors.js';
import type { OutboxEntry, SentPart } from '../store/outbox-message.js';

/**
 * What a front end (Slack, the local workspace) does with an outbox row. Owned here, by the worker that
 * calls it; the worker decides when to send, records each part as it lands, and retries.
 */
export interface DeliveryPort {
  /**
   * Cuts the row into parts (an answer's messages, the cards a rewrite touches). Called at the first
   * attempt only: the cut is kept with the row, so a retry sends exactly the same parts.
   */
  plan(entry: OutboxEntry): Promise<readonly string[]>;
  /**
   * Sends one part and says where it landed. With `inDoubt`, an earlier attempt may already have sent
   * it: the port looks for it first and returns that message instead of posting again.
   */
  sendPart(entry: OutboxEntry, part: { index: number; content: string; inDoubt: boolean }): Promise<SentPart>;
}

export type DeliveryDisposition =
  /**
   * Try again later; `afterMs` is what the other side asked for (Retry-After), if anything. `limited`:
   * the other side only asked to wait (a rate limit), which is no failure of the row's own.
   */
  | { readonly type: 'retry'; readonly afterMs?: number; readonly limited?: boolean }
  /** It will never work as things stand (`not_in_channel`, `is_archived`): stop and tell a person. */
  | { readonly type: 'undeliverable' };

export class DeliveryError extends HoldfastError {
  readonly code = 'delivery_failed';
  constructor(
    /** Short and stable, for people and the audit table (`not_in_channel`, `ratelimited`). */
    readonly reason: string,
    readonly disposition: DeliveryDisposition,
    options?: { cause?: unknown; mayHaveLanded?: boolean },
  ) {
    super(`delivery failed: ${reason}`, options);
    this.mayHaveLanded = options?.mayHaveLanded ?? false;
  }

  /**
   * The part may have reached the other side all the same (the connection dropped after the request went
   * out, a timeout, or a lookup for an earlier attempt's part that did not finish): the next attempt
   * looks for it before sending it again.
   */
  readonly mayHaveLanded: boolean;
}
