import { LRUCache } from 'lru-cache';
import type { Tool } from '../agent/tool.js';
import type { Conversation } from '../store/records.js';

/** What it costs something to build per conversation: its tool set (plugins included) and prompt. */
export interface ConversationAgent {
  readonly conversationId: string;
  readonly tools: readonly Tool[];
  readonly systemPrompt: string;
}

export interface AgentCacheOptions {
  readonly max: number;
  readonly build: (conversation: Conversation) => ConversationAgent;
}

/**
 * Agents are a cache, never a home for state: eviction at any moment is harmless because transcripts,
 * approvals and kv all live in the store (invariant 6).
 */
export class AgentCache {
  readonly #cache: LRUCache<string, ConversationAgent>;
  readonly #build: AgentCacheOptions['build'];
  #builds = 0;

  constructor(options: AgentCacheOptions) {
    this.#cache = new LRUCache({ max: Math.max(1, options.max) });
    this.#build = options.build;
  }

  get(conversation: Conversation): ConversationAgent {
    const cached = this.#cache.get(conversation.id);
    if (cached) return cached;
    const agent = this.#build(conversation);
    this.#builds += 1;
    this.#cache.set(conversation.id, agent);
    return agent;
  }

  get size(): number {
    return this.#cache.size;
  }

  /** How many times an agent was (re)built: eviction shows up here, and nowhere else. */
  get builds(): number {
    return this.#builds;
  }

  clear(): void {
    this.#cache.clear();
  }
}
