import type { WebClient } from '@slack/web-api';
import { z } from 'zod';
import type { SlackPort } from './slack-port.js';

/** What `createSlackWebApi` shares with the search: its client and error mapping. */
export interface FindDeliveryDeps {
  readonly client: WebClient;
  readonly call: <Result>(method: string, work: () => Promise<Result>) => Promise<Result>;
}

/** The metadata event type holdfast tags its deliveries with; the payload carries the outbox part's key. */
export const deliveryEventType = 'holdfast_delivery';
/** Pages of history read while looking for a lost delivery, at most. */
const searchPages = 5;

const historyResponse = z.object({
  messages: z
    .array(
      z.object({
        ts: z.string(),
        metadata: z
          .object({
            event_type: z.string().optional(),
            event_payload: z.record(z.string(), z.unknown()).optional(),
          })
          .optional(),
      }),
    )
    .default([]),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

/** A thread's replies, or a channel's history, searched for the post that carries a delivery's key. */
export function createFindDelivery({ client, call }: FindDeliveryDeps): SlackPort['findDelivery'] {
  return async (where) => {
    let cursor: string | undefined;
    for (let page = 0; page < searchPages; page += 1) {
      const result = historyResponse.parse(
        where.threadTs
          ? await call('conversations.replies', () =>
              client.conversations.replies({
                channel: where.channel,
                ts: where.threadTs as string,
                oldest: where.oldest,
                include_all_metadata: true,
                limit: 200,
                cursor,
              }),
            )
          : await call('conversations.history', () =>
              client.conversations.history({
                channel: where.channel,
                oldest: where.oldest,
                include_all_metadata: true,
                limit: 200,
                cursor,
              }),
            ),
      );
      const found = result.messages.find(
        (candidate) =>
          candidate.metadata?.event_type === deliveryEventType &&
          candidate.metadata.event_payload?.key === where.deliveryKey,
      );
      if (found) return { channel: where.channel, ts: found.ts };
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) return undefined;
    }
    return undefined;
  };
}

/**
 * The delivery key of the message at `ts` (read in the thread rooted at `threadTs`, or as its own root),
 * or undefined when there is no such message or it carries none.
 */
export function createDeliveryKeyAt({ client, call }: FindDeliveryDeps): SlackPort['deliveryKeyAt'] {
  return async (where) => {
    const result = historyResponse.parse(
      await call('conversations.replies', () =>
        client.conversations.replies({
          channel: where.channel,
          ts: where.threadTs ?? where.ts,
          oldest: where.ts,
          latest: where.ts,
          inclusive: true,
          include_all_metadata: true,
          limit: 1,
        }),
      ),
    );
    const found = result.messages.find((candidate) => candidate.ts === where.ts);
    const payloadKey = found?.metadata?.event_payload?.key;
    return found?.metadata?.event_type === deliveryEventType && typeof payloadKey === 'string'
      ? payloadKey
      : undefined;
  };
}
