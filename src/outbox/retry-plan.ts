import { describeError } from '../errors.js';
import { DeliveryError } from './delivery-port.js';

export const defaultBackoffMs = (attempt: number) => Math.min(300_000, 1_000 * 2 ** Math.max(0, attempt - 1));

/** How long failing rows are retried, and how far apart. */
export interface RetryPolicy {
  /** Attempts before a row that keeps failing transiently is given up on. */
  readonly maxAttempts?: number;
  /** Delay before attempt `attempt + 1` when the other side did not say how long to wait. */
  readonly backoffMs?: (attempt: number) => number;
}

export type RetryPlan =
  | { readonly type: 'give-up'; readonly reason: string }
  | {
      readonly type: 'retry';
      readonly waitMs: number;
      readonly inDoubt: boolean;
      /** Only asked to wait (a rate limit): the attempt does not count towards giving up. */
      readonly waited: boolean;
    };

/**
 * What becomes of a row whose send failed on its `attempts`th attempt: another try later, or none.
 * Invariant 8: a rate limit never ends a row, however long Slack asks it to wait; only a refusal that
 * will not change (`not_in_channel`, `msg_too_long`) or failures that keep coming do.
 */
export function retryPlan(error: unknown, attempts: number, policy: RetryPolicy): RetryPlan {
  if (error instanceof DeliveryError && error.disposition.type === 'undeliverable') {
    return { type: 'give-up', reason: error.reason };
  }
  const waited =
    error instanceof DeliveryError &&
    error.disposition.type === 'retry' &&
    error.disposition.limited === true;
  if (!waited && attempts >= (policy.maxAttempts ?? 20)) {
    return { type: 'give-up', reason: `gave up after ${attempts} attempts: ${reasonOf(error)}` };
  }
  const waitMs =
    error instanceof DeliveryError &&
    error.disposition.type === 'retry' &&
    error.disposition.afterMs !== undefined
      ? error.disposition.afterMs
      : (policy.backoffMs ?? defaultBackoffMs)(attempts);
  // A part that may have landed keeps the row in doubt: the next attempt looks before it posts.
  const inDoubt = error instanceof DeliveryError ? error.mayHaveLanded : true;
  return { type: 'retry', waitMs, inDoubt, waited };
}

/** A failure in a few words, for the row and the people told about it. */
export function reasonOf(error: unknown): string {
  return error instanceof DeliveryError ? error.reason : describeError(error);
}
