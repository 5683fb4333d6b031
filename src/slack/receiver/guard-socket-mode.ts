import type { SocketModeReceiver } from '@slack/bolt';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HoldfastError } from '../../errors.js';
import { checkSlackRequestBody } from './slack-request-body.js';

/** The installed @slack/socket-mode no longer reads messages the way the guard expects. */
export class SocketModeGuardError extends HoldfastError {
  readonly code = 'socket_mode_guard_unsupported';
}

/**
 * The envelope types Slack sends over a Socket Mode connection. The client emits every envelope under its
 * own `type` as an event name, so an unlisted type such as `error`, `close` or `disconnected` would drive
 * the client's connection state machine instead of reaching a listener.
 */
const controlEnvelope = z.looseObject({ type: z.enum(['hello', 'disconnect']) });
const requestEnvelope = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('events_api'),
    envelope_id: z.string(),
    // The client reads `payload.event.type` itself before Bolt sees the payload.
    payload: z.looseObject({ event: z.looseObject({ type: z.string() }) }),
  }),
  z.looseObject({ type: z.literal('interactive'), envelope_id: z.string(), payload: z.unknown() }),
  z.looseObject({ type: z.literal('slash_commands'), envelope_id: z.string(), payload: z.unknown() }),
]);

export type SocketModeMessageCheck = { type: 'accepted' } | { type: 'refused'; reason: string };

/** Whether a text frame from the Socket Mode connection may go on to the client. Pure. */
export function checkSocketModeMessage(text: string): SocketModeMessageCheck {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return { type: 'refused', reason: 'the message is not JSON' };
  }
  if (controlEnvelope.safeParse(message).success) return { type: 'accepted' };
  const envelope = requestEnvelope.safeParse(message);
  if (!envelope.success) {
    const issue = envelope.error.issues[0];
    return {
      type: 'refused',
      reason: `${issue?.path.join('.') || 'envelope'}: ${issue?.message ?? 'invalid'}`,
    };
  }
  const body = checkSlackRequestBody(envelope.data.payload);
  return body.type === 'routable' ? { type: 'accepted' } : { type: 'refused', reason: body.reason };
}

type MessageReader = (data: unknown, isBinary: boolean) => unknown;

/**
 * Puts `checkSocketModeMessage` in front of the Socket Mode client's own message reader. That reader is
 * an async function the client calls without awaiting, and it dereferences the envelope unchecked, so
 * one `null` frame is an unhandled rejection. A refused frame is logged and dropped unacknowledged, as an
 * HTTP request refused with 400 would be; any failure of an accepted one is caught and logged.
 */
export function guardSocketMode(receiver: SocketModeReceiver, deps: { logger: Logger }): SocketModeReceiver {
  const { client } = receiver;
  const readers = client.listeners('ws_message') as MessageReader[];
  if (readers.length === 0)
    throw new SocketModeGuardError('the Socket Mode client has no ws_message reader to guard');
  client.removeAllListeners('ws_message');
  const failed = (error: unknown) => {
    deps.logger.error({ err: error }, 'failed to read a Socket Mode envelope');
  };
  client.on('ws_message', (data: unknown, isBinary: boolean) => {
    let frame = data;
    // Binary frames are ignored by the client itself.
    if (!isBinary) {
      const text = frameText(data);
      const check: SocketModeMessageCheck =
        text === undefined
          ? { type: 'refused', reason: 'the frame is not text' }
          : checkSocketModeMessage(text);
      if (check.type === 'refused') {
        deps.logger.warn({ reason: check.reason }, 'refused a Socket Mode envelope');
        return;
      }
      frame = text;
    }
    for (const read of readers) {
      try {
        Promise.resolve(read.call(client, frame, isBinary)).catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  });
  return receiver;
}

function frameText(data: unknown): string | undefined {
  if (typeof data === 'string') return data;
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  if (Array.isArray(data) && data.every((part) => Buffer.isBuffer(part)))
    return Buffer.concat(data).toString('utf8');
  return undefined;
}
