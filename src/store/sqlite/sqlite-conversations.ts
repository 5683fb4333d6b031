import type Database from 'better-sqlite3';
import type { KvSnapshot } from '../../agent/kv.js';
import { type ConversationRow, toConversation } from '../row-mappers.js';
import type { ConversationStore } from '../store.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

/** Whether a conversation exists; also asked on the intake thread's own connection (see `IntakeThread`). */
export function prepareConversationKnown(db: Database.Database): (id: string) => boolean {
  const exists = db.prepare<[string]>('SELECT 1 FROM conversations WHERE id = ?').pluck();
  return (id) => exists.get(id) !== undefined;
}

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
