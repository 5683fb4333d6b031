import { DeliveryError } from '../../outbox/delivery-port.js';
import { SlackApiError } from '../web-api/slack-errors.js';

/** Card rewrites find nothing to rewrite when the card is gone: that rewrite is done, not failed. */
export const goneMessage = new Set([
  'message_not_found',
  'cant_update_message',
  'channel_not_found',
  'is_archived',
]);

/** A failure while looking for an earlier attempt's part: whether it landed is still unknown. */
export function stillInDoubt(error: unknown): never {
  throw error instanceof DeliveryError
    ? new DeliveryError(error.reason, error.disposition, { cause: error, mayHaveLanded: true })
    : error;
}

export function toDeliveryError(method: string, error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof SlackApiError) {
    if (error.retryAfterMs !== undefined) {
      return new DeliveryError(
        'ratelimited',
        { type: 'retry', afterMs: error.retryAfterMs, limited: true },
        { cause: error, mayHaveLanded: !error.refused },
      );
    }
    if (error.permanent)
      return new DeliveryError(
        error.slackError,
        { type: 'undeliverable' },
        { cause: error, mayHaveLanded: !error.refused },
      );
    return new DeliveryError(
      error.slackError,
      { type: 'retry' },
      { cause: error, mayHaveLanded: !error.refused },
    );
  }
  return new DeliveryError(
    `${method}: ${error instanceof Error ? error.message : String(error)}`,
    { type: 'retry' },
    { cause: error, mayHaveLanded: true },
  );
}
