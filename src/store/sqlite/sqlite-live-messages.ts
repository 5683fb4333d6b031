import type { LiveMessage, LiveMessageStore } from '../store.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

interface LiveMessageRow {
  channel: string;
  ts: string;
  kind: LiveMessage['kind'];
  owner: string;
}

export function createSqliteLiveMessages({ db, now }: SqliteContext): LiveMessageStore {
  const upsert = db.prepare(
    `INSERT INTO live_messages (turn_id, channel, ts, kind, owner, updated_at)
     VALUES (@turnId, @channel, @ts, @kind, @owner, @at)
     ON CONFLICT (turn_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts, kind = excluded.kind,
       owner = excluded.owner, updated_at = excluded.updated_at`,
  );
  const select = db.prepare<[string], LiveMessageRow>(
    'SELECT channel, ts, kind, owner FROM live_messages WHERE turn_id = ?',
  );
  const remove = db.prepare('DELETE FROM live_messages WHERE turn_id = ?');
  const record = writeTransaction(db, (turnId: string, message: LiveMessage) => {
    upsert.run({
      turnId,
      channel: message.channel,
      ts: message.ts,
      kind: message.kind,
      owner: message.owner,
      at: now(),
    });
  });
  const forget = writeTransaction(db, (turnId: string) => {
    remove.run(turnId);
  });
  return {
    record: (turnId, message) => record(turnId, message),
    async get(turnId) {
      const row = select.get(turnId);
      return row ? { channel: row.channel, ts: row.ts, kind: row.kind, owner: row.owner } : undefined;
    },
    forget: (turnId) => forget(turnId),
  };
}
