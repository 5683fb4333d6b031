import type { InboundMessage, InboundStore, NewInboundMessage } from '../store.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

interface InboundRow {
  key: string;
  lane: string;
  payload_json: string;
  received_at: number;
}

export function createSqliteInbound({ db, now }: SqliteContext): InboundStore {
  const insert = db.prepare(
    `INSERT INTO inbound_messages (key, lane, payload_json, received_at) VALUES (@key, @lane, @payload, @at)
     ON CONFLICT (key) DO NOTHING`,
  );
  const remove = db.prepare('DELETE FROM inbound_messages WHERE key = ?');
  // `LIMIT +?`: SQLite compiles a bare bound LIMIT's value into the plan, so it would recompile every run.
  // The table holds only what is unsettled, so this reads pending work, never history.
  const unsettled = db.prepare<[number, number], InboundRow>(
    'SELECT * FROM inbound_messages WHERE received_at < ? ORDER BY received_at, rowid LIMIT +?',
  );
  const keep = writeTransaction(
    db,
    (message: NewInboundMessage) => insert.run({ ...message, at: now() }).changes === 1,
  );
  const settle = writeTransaction(db, (key: string) => {
    remove.run(key);
  });
  return {
    keep: (message) => keep(message),
    settle: (key) => settle(key),
    async unsettled({ receivedBefore, limit }) {
      return unsettled.all(receivedBefore, limit).map(toInbound);
    },
  };
}

function toInbound(row: InboundRow): InboundMessage {
  return { key: row.key, lane: row.lane, payload: row.payload_json, receivedAt: row.received_at };
}
