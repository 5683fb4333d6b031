import { conversationId, type ThreadKey } from '../../store/conversation-id.js';
import type { NewInboundMessage } from '../../store/store.js';
import { eventEnvelopeSchema, type MessageEvent, messageEventSchema } from '../payloads.js';
import { isFreshStart } from './direct-context.js';

/** What a message event asks of holdfast, read from the event alone (no database, no Slack). */
export type Screening =
  | { readonly type: 'ignored'; readonly reason: string }
  /** A plain reply in a thread: kept only if holdfast is part of that thread. */
  | { readonly type: 'if-thread-known'; readonly conversationId: string; readonly message: NewInboundMessage }
  /** "new" in a DM: nothing to answer; a reaction says the next message starts afresh. */
  | { readonly type: 'fresh-start' }
  | { readonly type: 'keep'; readonly message: NewInboundMessage };

/** A message event read from its delivery, or why it cannot be. */
export type MessageDelivery =
  | {
      readonly type: 'message';
      readonly event: MessageEvent;
      readonly envelope: { readonly teamId: string; readonly eventId?: string };
    }
  | { readonly type: 'malformed'; readonly issues: readonly unknown[] }
  | { readonly type: 'no-team' };

/**
 * Reads a message event and its envelope (shared by the two intakes). The team is the envelope's, else
 * `fallbackTeam` (Bolt's context, or the workspace holdfast is installed in).
 */
export function readMessageDelivery(
  rawEvent: unknown,
  rawBody: unknown,
  fallbackTeam?: string,
): MessageDelivery {
  const event = messageEventSchema.safeParse(rawEvent);
  const envelope = eventEnvelopeSchema.safeParse(rawBody);
  if (!event.success || !envelope.success)
    return { type: 'malformed', issues: event.error?.issues ?? envelope.error?.issues ?? [] };
  const teamId = envelope.data.team_id ?? fallbackTeam;
  if (!teamId) return { type: 'no-team' };
  return { type: 'message', event: event.data, envelope: { teamId, eventId: envelope.data.event_id } };
}

/** Subtypes that are a person saying something; edits, joins, bot posts and the rest are not. */
const conversationalSubtypes = new Set([undefined, 'thread_broadcast', 'file_share']);

/**
 * The first look at a message event, a pure function of it. A message to keep comes out keyed and redacted: a
 * secret pasted into Slack is kept out of the database from the start.
 */
export function screenMessage(
  event: MessageEvent,
  envelope: { readonly teamId: string; readonly eventId?: string },
  options: { readonly botUserId: string; readonly redact: (text: string) => string },
): Screening {
  if (event.bot_id || !event.user) return { type: 'ignored', reason: 'posted by a bot' };
  if (event.user === options.botUserId) return { type: 'ignored', reason: 'our own message' };
  if (!conversationalSubtypes.has(event.subtype))
    return { type: 'ignored', reason: `subtype ${event.subtype}` };
  if (event.text.trim() === '') return { type: 'ignored', reason: 'no text' };

  const { isDirect, isMention, key, inThread } = readAddress(event, envelope.teamId, options.botUserId);
  if (!isDirect && !isMention) {
    // A plain channel message only matters inside a thread holdfast is already part of.
    if (!event.thread_ts) return { type: 'ignored', reason: 'not addressed to holdfast' };
    if (!inThread) return { type: 'ignored', reason: 'thread holdfast is not part of' };
    return {
      type: 'if-thread-known',
      conversationId: conversationId(key),
      message: toKeep(event, envelope, key, options.redact),
    };
  }
  if (isDirect && !event.thread_ts && isFreshStart(event.text)) return { type: 'fresh-start' };
  return { type: 'keep', message: toKeep(event, envelope, key, options.redact) };
}

function toKeep(
  event: MessageEvent,
  envelope: { readonly teamId: string; readonly eventId?: string },
  key: ThreadKey,
  redact: (text: string) => string,
): NewInboundMessage {
  return {
    // Each copy of the message/app_mention twins is kept under its own key (see `receiveMessage`).
    key: `${envelope.teamId}:${event.channel}:${event.ts}:${event.type}`,
    lane: conversationId(key),
    payload: JSON.stringify({ event: { ...event, text: redact(event.text) }, ...envelope }),
  };
}

export interface MessageAddress {
  readonly isDirect: boolean;
  readonly isMention: boolean;
  readonly key: ThreadKey;
  readonly inThread: boolean;
}

/** Where a message belongs: its thread, and whether it was addressed to holdfast. */
export function readAddress(event: MessageEvent, teamId: string, botUserId: string): MessageAddress {
  const threadTs = event.thread_ts ?? event.ts;
  return {
    isDirect: event.channel_type === 'im' || event.channel.startsWith('D'),
    isMention: event.type === 'app_mention' || event.text.includes(`<@${botUserId}`),
    key: { teamId, channelId: event.channel, threadTs },
    inThread: event.thread_ts !== undefined && event.thread_ts !== event.ts,
  };
}
