import type { Turn, TurnStatus } from '../records.js';
import type { TurnHolder } from '../rules/turn-writes.js';

export interface TurnRow {
  seq: number;
  id: string;
  conversation_id: string;
  status: TurnStatus;
  trigger_key: string;
  trigger_ts: string;
  requested_by: string;
  input_text: string;
  lease_owner: string | null;
  lease_expires_at: number | null;
  lease_token: number;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  /** Absent from rows read by a statement that lists its columns and from files of version 9 or older. */
  stopped_by?: string | null;
  created_at: number;
  updated_at: number;
}

export function toTurn(row: TurnRow): Turn {
  return {
    id: row.id,
    seq: row.seq,
    conversationId: row.conversation_id,
    status: row.status,
    triggerKey: row.trigger_key,
    triggerTs: row.trigger_ts,
    requestedBy: row.requested_by,
    inputText: row.input_text,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    leaseToken: row.lease_token,
    attempts: row.attempts,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    stoppedBy: row.stopped_by ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns a fence is checked against, as both stores select them. */
export type TurnHolderRow = Pick<TurnRow, 'conversation_id' | 'status' | 'lease_owner' | 'lease_token'>;

export function toTurnHolder(row: TurnHolderRow | undefined): TurnHolder | undefined {
  return row
    ? {
        conversationId: row.conversation_id,
        status: row.status,
        leaseOwner: row.lease_owner,
        leaseToken: row.lease_token,
      }
    : undefined;
}
