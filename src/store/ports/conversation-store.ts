import type { KvSnapshot } from '../kv-snapshot.js';
import type { Conversation } from '../records.js';

export interface ConversationKey {
  readonly teamId: string;
  readonly channelId: string;
  readonly threadTs: string;
}

export interface ConversationStore {
  get(id: string): Promise<Conversation | undefined>;
  saveKv(id: string, kv: KvSnapshot): Promise<void>;
}
