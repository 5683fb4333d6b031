import type { InboundMessage, InboundStore } from '../store.js';
import { autocommit, type PgContext, read } from './pg-context.js';

interface InboundRow {
  key: string;
  lane: string;
  payload_json: string;
  received_at: string;
}

/** Each write is one statement, committed on its own: keeping a message is what its acknowledgement waits for. */
export function createPgInbound(context: PgContext): InboundStore {
  return {
    async keep(message) {
      const { changed } = await autocommit(context, (now) => ({
        text: `INSERT INTO inbound_messages (key, lane, payload_json, received_at) VALUES ($1, $2, $3, ${now})
               ON CONFLICT (key) DO NOTHING`,
        values: [message.key, message.lane, message.payload],
      }));
      return changed === 1;
    },
    async settle(key) {
      await autocommit(context, () => ({
        text: 'DELETE FROM inbound_messages WHERE key = $1',
        values: [key],
      }));
    },
    async unsettled({ receivedBefore, limit }) {
      const rows = await read<InboundRow>(
        context,
        `SELECT * FROM inbound_messages WHERE received_at < $1 ORDER BY received_at, seq LIMIT $2`,
        [receivedBefore, limit],
      );
      return rows.map(toInbound);
    },
  };
}

function toInbound(row: InboundRow): InboundMessage {
  return { key: row.key, lane: row.lane, payload: row.payload_json, receivedAt: Number(row.received_at) };
}
