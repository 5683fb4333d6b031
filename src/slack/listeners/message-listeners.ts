import type { App } from '@slack/bolt';
import { type ReceiveMessageDeps, receiveMessage, turnFromKeptMessage } from '../intake/receive-message.js';
import { readMessageDelivery } from '../intake/screen-message.js';

/**
 * `app_mention` and `message` both feed the same intake; it dedupes the twins. A message is acknowledged
 * once it is kept; the runtime's inbound queue then hands it back here to become a turn.
 */
export function registerMessageListeners(app: App, deps: ReceiveMessageDeps & { teamId?: string }): void {
  deps.runtime.inbound.handle(async (message) => {
    const result = await turnFromKeptMessage(deps, message);
    // Whatever it became (a turn, a duplicate, a refusal), the enqueue settled it in its own commit; an
    // unreadable one is left for the queue to settle.
    return { settled: result.type !== 'ignored' };
  });
  const handle = async (rawEvent: unknown, rawBody: unknown, contextTeam: string | undefined) => {
    const delivery = readMessageDelivery(rawEvent, rawBody, contextTeam ?? deps.teamId);
    if (delivery.type === 'malformed') {
      deps.logger.warn({ issues: delivery.issues }, 'ignoring a malformed message event');
      return;
    }
    if (delivery.type === 'no-team') {
      deps.logger.warn('ignoring a message event without a team id');
      return;
    }
    const { event, envelope } = delivery;
    const result = await receiveMessage(deps, event, envelope);
    // A kept message is logged as handled once it has become a turn (see `turnFromKeptMessage`).
    if (result.type !== 'kept')
      deps.logger.debug({ result: result.type, ts: event.ts }, 'message event handled');
  };
  app.event('app_mention', async ({ event, body, context }) => handle(event, body, context.teamId));
  app.message(async ({ message, body, context }) => handle(message, body, context.teamId));
}
