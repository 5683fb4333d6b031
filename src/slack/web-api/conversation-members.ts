import type { WebClient } from '@slack/web-api';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { ConversationMembers } from './slack-port.js';

export interface ConversationMembersOptions {
  readonly client: WebClient;
  readonly logger: Logger;
  /** Wraps a Web API call so failures become `SlackApiError`s. */
  readonly call: <Result>(method: string, work: () => Promise<Result>) => Promise<Result>;
  /** How long a member list is trusted: short, since leaving a channel should soon hide its records. */
  readonly ttlMs?: number;
}

const infoResponse = z.object({
  channel: z.object({ is_im: z.boolean().optional(), is_mpim: z.boolean().optional() }),
});
const membersResponse = z.object({
  members: z.array(z.string()),
  response_metadata: z.object({ next_cursor: z.string().optional() }).optional(),
});

const PAGE_SIZE = 200;
// 50,000 members. A channel larger than that lists only its first members as such; the others still
// see what they requested or may approve.
const MAX_PAGES = 250;

/**
 * `conversations.info` (is it a DM or group DM?) then `conversations.members`, every page, behind a
 * cache with a TTL. A failure is not cached, and reads as `unknown`: nobody is taken for a member.
 */
export function createConversationMembers(
  options: ConversationMembersOptions,
): (channelId: string) => Promise<ConversationMembers> {
  const { client, logger, call } = options;
  const cache = new LRUCache<string, ConversationMembers>({
    ttl: options.ttlMs ?? 60_000,
    // Sized by members, so a few huge channels cannot crowd the memory.
    maxSize: 200_000,
    sizeCalculation: (entry) => (entry.type === 'channel' ? entry.members.size + 1 : 1),
  });

  const load = async (channelId: string): Promise<ConversationMembers> => {
    // Direct message ids start with D; group DMs only show themselves through conversations.info.
    if (channelId.startsWith('D')) return { type: 'direct' };
    const info = infoResponse.parse(
      await call('conversations.info', () => client.conversations.info({ channel: channelId })),
    ).channel;
    if (info.is_im || info.is_mpim) return { type: 'direct' };
    const members = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page += 1) {
      const result = membersResponse.parse(
        await call('conversations.members', () =>
          client.conversations.members({ channel: channelId, limit: PAGE_SIZE, cursor }),
        ),
      );
      for (const member of result.members) members.add(member);
      cursor = result.response_metadata?.next_cursor || undefined;
      if (!cursor) return { type: 'channel', members };
    }
    logger.warn({ channelId, listed: members.size }, 'channel has more members than holdfast lists');
    return { type: 'channel', members };
  };

  return async (channelId) => {
    const cached = cache.get(channelId);
    if (cached) return cached;
    try {
      const loaded = await load(channelId);
      cache.set(channelId, loaded);
      return loaded;
    } catch (error) {
      logger.warn({ err: error, channelId }, 'could not list the members of a conversation');
      return { type: 'unknown' };
    }
  };
}
