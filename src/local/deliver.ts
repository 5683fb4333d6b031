import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';

export interface Delivery {
  readonly body: string;
  readonly contentType: string;
}

export interface DeliverOptions {
  readonly url: string;
  readonly signingSecret: string;
  readonly now: () => number;
  readonly logger: Logger;
}

/** Slack's v0 signature, which Bolt's receiver checks over the raw body. */
function signSlackBody(signingSecret: string, timestampSeconds: number, body: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestampSeconds}:${body}`).digest('hex')}`;
}

export const jsonDelivery = (value: unknown): Delivery => ({
  body: JSON.stringify(value),
  contentType: 'application/json',
});

export const formDelivery = (fields: Record<string, string>): Delivery => ({
  body: new URLSearchParams(fields).toString(),
  contentType: 'application/x-www-form-urlencoded',
});

/**
 * Posts a signed request to holdfast's receiver the way Slack does, and returns the acknowledgement body
 * (a slash command may answer in it). A receiver that is down is logged, not thrown: Slack would retry,
 * the page just shows nothing happened.
 */
export function createDeliverer(options: DeliverOptions) {
  return async (delivery: Delivery): Promise<{ status: number; text: string } | undefined> => {
    const timestamp = Math.floor(options.now() / 1000);
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': delivery.contentType,
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': signSlackBody(options.signingSecret, timestamp, delivery.body),
        },
        body: delivery.body,
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      if (!response.ok) options.logger.warn({ status: response.status }, 'holdfast refused a delivery');
      return { status: response.status, text };
    } catch (error) {
      options.logger.warn({ err: error }, 'could not deliver to holdfast');
      return undefined;
    }
  };
}
