import type { StoredMessage } from '../records.js';
import { messageColumns, rootConversationOf } from '../row-mappers.js';
import type { ChatMessage } from '../transcript-records.js';
import type { Tx } from './pg-context.js';

const appendSql = `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, tool_calls_json,
    tool_call_id, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

function appendValues(tx: Tx, turnId: string, transcriptId: string, message: ChatMessage): unknown[] {
  const columns = messageColumns(message);
  return [
    rootConversationOf(transcriptId),
    transcriptId,
    turnId,
    columns.role,
    columns.content,
    columns.toolCalls,
    columns.toolCallId,
    tx.now,
  ];
}

/** Appends a message inside a caller's transaction, sent with its next statement. */
export function appendLater(tx: Tx, turnId: string, transcriptId: string, message: ChatMessage): void {
  tx.later(appendSql, appendValues(tx, turnId, transcriptId, message));
}

/** Appends a message inside a caller's transaction; returns it as stored. */
export async function appendInside(
  tx: Tx,
  turnId: string,
  transcriptId: string,
  message: ChatMessage,
): Promise<StoredMessage> {
  const row = await tx.one<{ seq: number }>(
    `${appendSql} RETURNING seq`,
    appendValues(tx, turnId, transcriptId, message),
  );
  return { seq: Number(row?.seq), transcriptId, turnId, message };
}
