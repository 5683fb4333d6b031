import { type ConversationRow, toConversation } from '../row-mappers.js';
import type { ConversationStore } from '../store.js';
import { type PgContext, read, transaction } from './pg-context.js';

export function createPgConversations(context: PgContext): ConversationStore {
  return {
    async get(id) {
      const [row] = await read<ConversationRow>(context, 'SELECT * FROM conversations WHERE id = $1', [id]);
      return row ? toConversation(row) : undefined;
    },
    async saveKv(id, kv) {
      await transaction(context, async (tx) => {
        tx.lockConversation(id);
        tx.later('UPDATE conversations SET kv_json = $2 WHERE id = $1', [id, JSON.stringify(kv)]);
      });
    },
  };
}
