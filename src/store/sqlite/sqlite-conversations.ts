import type { KvSnapshot } from '../kv-snapshot.js';
import { type ConversationRow, toConversation } from '../row-mappers.js';
import type { ConversationStore } from '../store.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

export function createSqliteConversations({ db }: SqliteContext): ConversationStore {
  const select = db.prepare<[string], ConversationRow>('SELECT * FROM conversations WHERE id = ?');
  const updateKv = db.prepare<[string, string]>('UPDATE conversations SET kv_json = ? WHERE id = ?');
  const saveKv = writeTransaction(db, (id: string, kv: KvSnapshot) => {
    updateKv.run(JSON.stringify(kv), id);
  });
  return {
    async get(id) {
      const row = select.get(id);
      return row ? toConversation(row) : undefined;
    },
    saveKv: async (id, kv) => saveKv(id, kv),
  };
}
