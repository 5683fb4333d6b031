import type { LocalMessage, LocalStore } from './local-store.js';
import { findChannel } from './seed.js';
import type { WebApiParams, WebApiResponse } from './web-api.js';
import { wireMessage } from './wire-message.js';

/**
 * `conversations.replies` and `conversations.history` from the local store, in Slack's shapes and with
 * Slack's paging: how holdfast, after a crash, finds a post it made but never heard back about (by the
 * key in its metadata) instead of posting it again.
 */
export function readConversation(
  store: LocalStore,
  method: 'conversations.replies' | 'conversations.history',
  params: WebApiParams,
): WebApiResponse {
  const text = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
  const channel = findChannel(text('channel') ?? '');
  if (!channel) return { ok: false, error: 'channel_not_found' };
  const oldest = text('oldest');
  if (oldest !== undefined && !/^\d+(\.\d+)?$/.test(oldest)) return { ok: false, error: 'invalid_ts_oldest' };
  const latest = text('latest');
  if (latest !== undefined && !/^\d+(\.\d+)?$/.test(latest)) return { ok: false, error: 'invalid_ts_latest' };
  const withMetadata = params.include_all_metadata === true || params.include_all_metadata === 'true';
  const wire = (message: LocalMessage) => wireMessage(message, { withMetadata });
  // Slack's bounds are exclusive unless `inclusive`; the store reads after `oldest`, the rest is here.
  const inclusive = params.inclusive === true || params.inclusive === 'true';
  const from = inclusive ? undefined : oldest;
  const within = (message: LocalMessage) =>
    (!inclusive || oldest === undefined || Number(message.ts) >= Number(oldest)) &&
    (latest === undefined ||
      (inclusive ? Number(message.ts) <= Number(latest) : Number(message.ts) < Number(latest)));

  if (method === 'conversations.replies') {
    const threadTs = text('ts') ?? '';
    if (!store.message(channel.id, threadTs)) return { ok: false, error: 'thread_not_found' };
    return { ok: true, ...page(store.thread(channel.id, threadTs, from).filter(within), params, wire) };
  }
  return {
    ok: true,
    ...page(store.history(channel.id, from).filter(within), params, wire),
    pin_count: 0,
    channel_actions_ts: null,
    channel_actions_count: 0,
  };
}

/** Slack pages with an opaque cursor; an offset is opaque enough here. */
function page(
  all: readonly LocalMessage[],
  params: WebApiParams,
  wire: (message: LocalMessage) => Record<string, unknown>,
) {
  const limit = Math.max(1, Math.min(1000, Number(params.limit ?? 100) || 100));
  const offset = Number(typeof params.cursor === 'string' ? params.cursor : 0) || 0;
  const next = offset + limit < all.length ? String(offset + limit) : '';
  return {
    messages: all.slice(offset, offset + limit).map(wire),
    has_more: next !== '',
    response_metadata: { next_cursor: next },
  };
}
