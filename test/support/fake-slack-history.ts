/**
 * Reading messages back the way Slack's history methods do: a thread or a channel, bounded by `oldest`
 * and `latest`, a page at a time.
 */
import { stringParam, wireMessage } from './fake-slack-wire.js';
import type { FakeIdentity, FakeMessage } from './fake-slack-workspace.js';

/** A history method's answer from the workspace's messages, for the channel the call names. */
type HistoryMethod = (
  messages: Iterable<FakeMessage>,
  channel: string,
  params: Record<string, unknown>,
  identity: FakeIdentity,
) => Record<string, unknown>;

/** `conversations.replies`: a thread's root and replies, oldest first. */
export const threadReplies: HistoryMethod = (messages, channel, params, identity) => {
  const threadTs = stringParam(params, 'ts') ?? '';
  // The fake never sees people's own posts, so a thread root it does not know is still a thread.
  const thread = [...messages]
    .filter((message) => message.channel === channel)
    .filter((message) => message.ts === threadTs || message.threadTs === threadTs)
    .filter(after(stringParam(params, 'oldest'), isInclusive(params)))
    .filter(before(stringParam(params, 'latest'), isInclusive(params)))
    .sort(byTs);
  return page(thread, params, (message) => wireMessage(message, identity, withMetadata(params)));
};

/** `conversations.history`: a channel's own messages, newest first; replies stay in their threads. */
export const channelHistory: HistoryMethod = (messages, channel, params, identity) => {
  const history = [...messages]
    .filter((message) => message.channel === channel)
    .filter((message) => message.threadTs === undefined || message.threadTs === message.ts)
    .filter(after(stringParam(params, 'oldest'), isInclusive(params)))
    .filter(before(stringParam(params, 'latest'), isInclusive(params)))
    .sort((a, b) => byTs(b, a));
  return {
    ...page(history, params, (message) => wireMessage(message, identity, withMetadata(params))),
    pin_count: 0,
    channel_actions_ts: null,
    channel_actions_count: 0,
  };
};

/** Slack pages with an opaque cursor; an offset is opaque enough for a fake. */
export function pageOf<T>(all: readonly T[], params: Record<string, unknown>): { items: T[]; next: string } {
  const limit = Math.max(1, Math.min(1000, Number(params.limit ?? 100) || 100));
  const offset = Number(typeof params.cursor === 'string' ? params.cursor : 0) || 0;
  const next = offset + limit < all.length ? String(offset + limit) : '';
  return { items: all.slice(offset, offset + limit), next };
}

function page(
  all: readonly FakeMessage[],
  params: Record<string, unknown>,
  wire: (message: FakeMessage) => Record<string, unknown>,
): Record<string, unknown> {
  const { items, next } = pageOf(all, params);
  return {
    ok: true,
    messages: items.map(wire),
    has_more: next !== '',
    response_metadata: { next_cursor: next },
  };
}

const byTs = (a: FakeMessage, b: FakeMessage) => a.ts.localeCompare(b.ts);

const withMetadata = (params: Record<string, unknown>) =>
  params.include_all_metadata === true || params.include_all_metadata === 'true';

const isInclusive = (params: Record<string, unknown>) =>
  params.inclusive === true || params.inclusive === 'true';

/** Slack's `latest` bounds from above, exclusive unless `inclusive`. */
function before(latest: string | undefined, inclusive: boolean): (message: FakeMessage) => boolean {
  if (!latest) return () => true;
  const bound = Number(latest);
  return (message) => (inclusive ? Number(message.ts) <= bound : Number(message.ts) < bound);
}

/** Slack's `oldest` bounds from below, exclusive unless `inclusive`. */
function after(oldest: string | undefined, inclusive: boolean): (message: FakeMessage) => boolean {
  if (!oldest) return () => true;
  const bound = Number(oldest);
  return (message) => (inclusive ? Number(message.ts) >= bound : Number(message.ts) > bound);
}
