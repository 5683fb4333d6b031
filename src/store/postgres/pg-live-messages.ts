import type { LiveMessage, LiveMessageStore } from '../store.js';
import { autocommit, type PgContext, read } from './pg-context.js';

interface LiveMessageRow {
  channel: string;
  ts: string;
  kind: LiveMessage['kind'];
  owner: string;
}

/** Decoration, not fenced: each write is one statement, committed on its own. */
export function createPgLiveMessages(context: PgContext): LiveMessageStore {
  return {
    async record(turnId, message) {
      await autocommit(context, (now) => ({
        text: `INSERT INTO live_messages (turn_id, channel, ts, kind, owner, updated_at)
               VALUES ($1, $2, $3, $4, $5, ${now})
               ON CONFLICT (turn_id) DO UPDATE SET channel = excluded.channel, ts = excluded.ts,
                 kind = excluded.kind, owner = excluded.owner, updated_at = excluded.updated_at`,
        values: [turnId, message.channel, message.ts, message.kind, message.owner],
      }));
    },
    async get(turnId) {
      const [row] = await read<LiveMessageRow>(
        context,
        'SELECT channel, ts, kind, owner FROM live_messages WHERE turn_id = $1',
        [turnId],
      );
      return row ? { channel: row.channel, ts: row.ts, kind: row.kind, owner: row.owner } : undefined;
    },
    async forget(turnId) {
      await autocommit(context, () => ({
        text: 'DELETE FROM live_messages WHERE turn_id = $1',
        values: [turnId],
      }));
    },
  };
}
