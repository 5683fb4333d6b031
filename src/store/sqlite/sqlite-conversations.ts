import { type ConversationRow, toConversation } from '../row-mappers.js';
import type { ConversationStore } from '../store.js';
import type { SqliteContext } from './sqlite-context.js';

export function createSqliteConversations({ db }: SqliteContext): ConversationStore {
  const select = db.prepare<[string], ConversationRow>('SELECT * FROM conversations WHERE id = ?');
  return {
    async get(id) {
      const row = select.get(id);
      return row ? toConversation(row) : undefined;
    },
  };
}
