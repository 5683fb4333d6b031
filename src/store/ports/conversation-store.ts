import type { Conversation } from '../records.js';

export interface ConversationKey {
  readonly teamId: string;
  readonly channelId: string;
  readonly threadTs: string;
}

export interface ConversationStore {
  get(id: string): Promise<Conversation | undefined>;
}
