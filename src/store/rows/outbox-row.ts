import {
  deliveryProgressSchema,
  type OutboxEntry,
  type OutboxStatus,
  outboxMessageSchema,
} from '../outbox-message.js';
import { parseJsonColumn } from './parse-json-column.js';

export interface OutboxRow {
  id: number;
  key: string;
  conversation_id: string;
  turn_id: string | null;
  request_id: string | null;
  message_json: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: number;
  claim_owner: string | null;
  claim_token: number;
  claim_expires_at: number | null;
  in_doubt: number;
  progress_json: string;
  last_error: string | null;
  created_at: number;
}

export function toOutboxEntry(row: OutboxRow): OutboxEntry {
  const where = { table: 'outbox', key: String(row.id) };
  return {
    id: row.id,
    key: row.key,
    conversationId: row.conversation_id,
    turnId: row.turn_id,
    requestId: row.request_id,
    message: parseJsonColumn(outboxMessageSchema, row.message_json, where),
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    claim:
      row.claim_owner === null
        ? null
        : { owner: row.claim_owner, token: row.claim_token, expiresAt: row.claim_expires_at ?? 0 },
    inDoubt: row.in_doubt === 1,
    progress: parseJsonColumn(deliveryProgressSchema, row.progress_json, where),
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}
