import { z } from 'zod';
import type { Approval, Conversation, Turn } from '../records.js';
import { type TurnRow, toConversation, toTurn } from '../row-mappers.js';
import type { AppliedTurnWrites, TurnHolder, TurnWrites } from '../rules/turn-writes.js';
import { createApprovalInside } from './pg-approval-rows.js';
import { holderOf, type Tx } from './pg-context.js';
import { appendLater } from './pg-messages.js';
import { workChannel } from './pg-notifications.js';
import { writeOutbox } from './pg-outbox-writer.js';

/** A thread's row as `row_to_json` gives it back. */
const conversationRowSchema = z.object({
  id: z.string(),
  team_id: z.string(),
  channel_id: z.string(),
  thread_ts: z.string(),
  kv_json: z.string(),
  created_at: z.number(),
});

/** Takes the thread's lock and reads who holds the turn, in one message (see `holderOf`). */
export async function holderInside(tx: Tx, turnId: string): Promise<TurnHolder | undefined> {
  lockTurnConversation(tx, turnId);
  return holderOf(tx, turnId);
}

/**
 * Applies a turn transition's write set inside the caller's transaction, under the thread's lock; decides
 * nothing. Past the insert and the take, nothing needs an answer: every write travels with COMMIT.
 */
export async function applyTurnWrites(tx: Tx, writes: TurnWrites): Promise<AppliedTurnWrites> {
  const { turnId, conversationId, change } = writes;
  if (writes.settleInbound !== undefined)
    tx.later('DELETE FROM inbound_messages WHERE key = $1', [writes.settleInbound]);
  let turn: Turn | undefined;
  let conversation: Conversation | undefined;
  if (writes.insert) {
    const insert = writes.insert;
    tx.later(
      `INSERT INTO conversations (id, team_id, channel_id, thread_ts, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO NOTHING`,
      [conversationId, insert.teamId, insert.channelId, insert.threadTs, tx.now],
    );
    // One Slack message delivered to two replicas at once lands here twice: one insert wins. The thread's
    // row comes back with the turn (inserted just before, or there already).
    const inserted = await tx.one<TurnRow & { conversation_row: unknown }>(
      `WITH inserted AS (
         INSERT INTO turns (id, conversation_id, status, trigger_key, trigger_ts, requested_by, input_text,
           created_at, updated_at)
         VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $7)
         ON CONFLICT (trigger_key) DO NOTHING
         RETURNING *)
       SELECT inserted.*, row_to_json(c) AS conversation_row
       FROM inserted JOIN conversations c ON c.id = inserted.conversation_id`,
      [
        turnId,
        conversationId,
        insert.triggerKey,
        insert.triggerTs,
        insert.requestedBy,
        insert.inputText,
        tx.now,
      ],
    );
    if (!inserted) return { type: 'duplicate' };
    turn = toTurn(inserted);
    conversation = toConversation(conversationRowSchema.parse(inserted.conversation_row));
  }
  if (change?.type === 'take') {
    // Guarded by what the claim read: a claim that raced past the lock (it cannot, but the schema and this
    // guard are what hold if it ever did) changes nothing.
    const taken = await tx.one<TurnRow>(
      `UPDATE turns SET status = 'running', lease_owner = $2, lease_expires_at = $3,
         lease_token = lease_token + 1, attempts = attempts + 1, ready_at = NULL, updated_at = $4
       WHERE id = $1 AND status = $5 AND lease_token = $6
       RETURNING *`,
      [turnId, change.owner, change.expiresAt, tx.now, change.from.status, change.from.leaseToken],
    );
    if (!taken) return { type: 'taken' };
    turn = toTurn(taken);
  } else if (change?.type === 'end') {
    const { status, error } = change;
    tx.later(
      `UPDATE turns SET status = $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = $3,
         error_code = $4, error_message = $5, stopped_by = $6
       WHERE id = $1`,
      [turnId, status, tx.now, error?.code ?? null, error?.message ?? null, error?.stoppedBy ?? null],
    );
  }
  for (const { transcriptId, message } of writes.messages) appendLater(tx, turnId, transcriptId, message);
  const approvals: Approval[] = [];
  for (const approval of writes.approvals)
    approvals.push((await createApprovalInside(tx, approval)).approval);
  if (writes.forgetStart)
    tx.later('DELETE FROM tool_executions WHERE transcript_id = $1 AND tool_call_id = $2', [
      writes.forgetStart.transcriptId,
      writes.forgetStart.toolCallId,
    ]);
  if (writes.kv !== undefined)
    tx.later('UPDATE conversations SET kv_json = $2 WHERE id = $1', [conversationId, writes.kv]);
  if (writes.kvSnapshot !== undefined)
    tx.later(
      `UPDATE approvals SET kv_snapshot_json = $2 WHERE request_id = (
         SELECT request_id FROM approvals WHERE turn_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1)`,
      [turnId, writes.kvSnapshot],
    );
  if (writes.markReady) markReady(tx, turnId);
  writeOutbox(tx, [...writes.outbox, ...(writes.outboxFor?.(approvals) ?? [])]);
  // Tells every replica that the turn left its holder: the thread's next turn is free.
  if (writes.finished) tx.notify(workChannel, JSON.stringify({ conversationId, turnId, event: 'finished' }));
  return { type: 'applied', turn, conversation, approvals };
}

/**
 * Marks an awaiting turn ready to resume once none of its requests is undecided; inside the commit that
 * decided (or expired) the last one, under the thread's lock.
 */
export function markReady(tx: Tx, turnId: string): void {
  tx.later(
    `UPDATE turns SET ready_at = $2 WHERE id = $1 AND status = 'awaiting_approval' AND ready_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = $1 AND a.resolved_at IS NULL)`,
    [turnId, tx.now],
  );
}

const lockOfTurnSql =
  'SELECT conversation_id, pg_advisory_xact_lock(hashtextextended(conversation_id, 0)) FROM turns WHERE id = $1';

/**
 * Takes the lock of the thread a turn belongs to (its conversation never changes), sent with the next
 * statement: the statements after it read snapshots taken once the lock is held.
 */
export function lockTurnConversation(tx: Tx, turnId: string): void {
  tx.later(lockOfTurnSql, [turnId]);
}

/** The same lock, now: the turn's conversation, or undefined for an unknown turn. */
export async function lockTurnConversationOf(tx: Tx, turnId: string): Promise<string | undefined> {
  return (await tx.one<{ conversation_id: string }>(lockOfTurnSql, [turnId]))?.conversation_id;
}
