import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import { isStoreFault } from '../../store/store-errors.js';

/**
 * Bolt acknowledges an Events API delivery before any listener runs, so an event whose save then fails
 * (a full disk, a read-only file) would be lost with Slack told it arrived. This wraps a receiver so an
 * event is acknowledged only once the app has processed it: when processing throws, the HTTP receiver
 * answers 500 and Socket Mode sends no ack, and Slack delivers the event again. Interactions (clicks,
 * commands) keep acknowledging themselves first, as Slack's three seconds require.
 */
export function deferEventAcks<R extends Receiver>(receiver: R): R {
  const init = receiver.init.bind(receiver);
  receiver.init = (app: App) => {
    const processEvent = async (event: ReceiverEvent): Promise<void> => {
      if (!isEventCallback(event.body)) return app.processEvent(event);
      let acknowledged = false;
      let response: unknown;
      try {
        await app.processEvent({
          ...event,
          ack: async (ackResponse?: unknown) => {
            acknowledged = true;
            response = ackResponse;
          },
        });
      } catch (error) {
        // Only a save that failed is worth Slack's redelivery; an event that cannot be processed at all
        // (malformed, or a bug) would fail the same way again, so it is acknowledged as before.
        if (!isStoreFault(causeOf(error))) await event.ack(response as never);
        throw error;
      }
      if (acknowledged) await event.ack(response as never);
    };
    init(Object.assign(Object.create(app) as App, { processEvent }));
  };
  return receiver;
}

function isEventCallback(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { type?: unknown }).type === 'event_callback';
}

/** Bolt wraps a listener's error in a coded error that keeps the original. */
function causeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null && 'original' in error ? error.original : error;
}
