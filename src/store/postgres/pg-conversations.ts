import { type ConversationRow, toConversation } from '../row-mappers.js';
import type { ConversationStore } from '../store.js';
import { type PgContext, read } from './pg-context.js';

export function createPgConversations(context: PgContext): ConversationStore {
  return {
    async get(id) {
      const [row] = await read<ConversationRow>(context, 'SELECT * FROM conversations WHERE id = $1', [id]);
      return row ? toConversation(row) : undefined;
    },
  };
}
