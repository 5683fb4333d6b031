import { kvSnapshotSchema } from '../kv-snapshot.js';
import type { Conversation } from '../records.js';
import { parseJsonColumn } from './parse-json-column.js';

export interface ConversationRow {
  id: string;
  team_id: string;
  channel_id: string;
  thread_ts: string;
  kv_json: string;
  created_at: number;
}

export function toConversation(row: ConversationRow): Conversation {
  return {
    id: row.id,
    teamId: row.team_id,
    channelId: row.channel_id,
    threadTs: row.thread_ts,
    kv: parseJsonColumn(kvSnapshotSchema, row.kv_json, { table: 'conversations', key: row.id }),
    createdAt: row.created_at,
  };
}
