import { LRUCache } from 'lru-cache';

/** A cache whose misses are asked of Slack by whichever client wants the value first. */
export type SharedLookup<Value extends {}> = LRUCache<string, Value, () => Promise<Value>>;

/**
 * What Slack answers that holds for a while: people's names, user groups' members, the DM channel with
 * a person, a message's link. One set serves every Web API port of a process (the intake lookups for a
 * kept message, the listeners, the outbox), so each is asked of Slack once per process, not once per port:
 * `users.info`, `conversations.open` and `chat.getPermalink` are all rate-limited. Concurrent lookups of
 * one key share one call, made through the client of the port that asked first; a failure is not kept.
 */
export interface SlackLookups {
  readonly names: SharedLookup<{ readonly name: string | undefined }>;
  readonly groups: SharedLookup<readonly string[]>;
  readonly directChannels: SharedLookup<string>;
  readonly permalinks: SharedLookup<string>;
  /**
   * What Slack refused for good, once for every port: methods the token cannot call at all
   * (`agents.sessions.setStatus` for an app not declared an agent), and the channels where one method
   * is refused (`assistant.threads.setStatus` outside assistant-capable conversations), as `method channel`.
   */
  readonly refused: {
    readonly methods: Set<string>;
    readonly inChannels: LRUCache<string, true>;
  };
}

export function createSlackLookups(options: { readonly cacheTtlMs?: number } = {}): SlackLookups {
  // Names and groups change now and then; a DM channel and a message's link never do.
  const ttl = options.cacheTtlMs ?? 10 * 60_000;
  return {
    names: sharedLookup({ max: 5_000, ttl }),
    groups: sharedLookup({ max: 500, ttl }),
    directChannels: sharedLookup({ max: 5_000 }),
    permalinks: sharedLookup({ max: 5_000 }),
    refused: { methods: new Set(), inChannels: new LRUCache({ max: 5_000 }) },
  };
}

function sharedLookup<Value extends {}>(options: { max: number; ttl?: number }): SharedLookup<Value> {
  return new LRUCache<string, Value, () => Promise<Value>>({
    ...options,
    fetchMethod: (_key, _stale, { context }) => context(),
  });
}
