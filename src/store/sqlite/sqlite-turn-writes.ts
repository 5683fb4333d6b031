import type { Conversation, Turn } from '../records.js';
import { type ConversationRow, type TurnRow, toConversation, toTurn } from '../row-mappers.js';
import type { AppliedTurnWrites, TurnWrites } from '../rules/turn-writes.js';
import { prepareApprovalCreate } from './sqlite-approval-rows.js';
import type { SqliteContext } from './sqlite-context.js';
import { prepareOutboxWriter } from './sqlite-outbox.js';
import { prepareMessageAppend } from './sqlite-transcript.js';

/** Applies a turn transition's write set, inside the caller's write transaction; decides nothing. */
export function prepareTurnWrites(context: SqliteContext) {
  const { db } = context;
  const settleInbound = db.prepare('DELETE FROM inbound_messages WHERE key = ?');
  const insertConversation = db.prepare(
    `INSERT INTO conversations (id, team_id, channel_id, thread_ts, created_at)
     VALUES (@conversationId, @teamId, @channelId, @threadTs, @now) ON CONFLICT (id) DO NOTHING`,
  );
  const insertTurn = db.prepare<Record<string, unknown>, TurnRow>(
    `INSERT INTO turns (id, conversation_id, status, trigger_key, trigger_ts, requested_by, input_text,
       created_at, updated_at)
     VALUES (@turnId, @conversationId, 'queued', @triggerKey, @triggerTs, @requestedBy, @inputText, @now, @now)
     ON CONFLICT (trigger_key) DO NOTHING RETURNING *`,
  );
  const selectConversation = db.prepare<[string], ConversationRow>(
    'SELECT * FROM conversations WHERE id = ?',
  );
  const take = db.prepare<Record<string, unknown>, TurnRow>(
    `UPDATE turns SET status = 'running', lease_owner = @owner, lease_expires_at = @expires,
       lease_token = lease_token + 1, attempts = attempts + 1, ready_at = NULL, updated_at = @now
     WHERE id = @id AND status = @fromStatus AND lease_token = @fromToken
     RETURNING *`,
  );
  const end = db.prepare(
    `UPDATE turns SET status = @status, lease_owner = NULL, lease_expires_at = NULL, updated_at = @now,
       error_code = @errorCode, error_message = @errorMessage, stopped_by = @stoppedBy
     WHERE id = @id`,
  );
  const forgetStart = db.prepare('DELETE FROM tool_executions WHERE transcript_id = ? AND tool_call_id = ?');
  const saveKv = db.prepare('UPDATE conversations SET kv_json = ? WHERE id = ?');
  const snapshotKv = db.prepare(
    `UPDATE approvals SET kv_snapshot_json = ? WHERE request_id = (
       SELECT request_id FROM approvals WHERE turn_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1)`,
  );
  const markReady = prepareReadyMark(context);
  const appendMessage = prepareMessageAppend(context);
  const createApproval = prepareApprovalCreate(context);
  const writeOutbox = prepareOutboxWriter(context);

  return (writes: TurnWrites, at: number): AppliedTurnWrites => {
    const { turnId, conversationId, change } = writes;
    if (writes.settleInbound !== undefined) settleInbound.run(writes.settleInbound);
    let turn: Turn | undefined;
    let conversation: Conversation | undefined;
    if (writes.insert) {
      insertConversation.run({ ...writes.insert, now: at });
      const inserted = insertTurn.get({ ...writes.insert, now: at });
      if (!inserted) return { type: 'duplicate' };
      turn = toTurn(inserted);
      const row = selectConversation.get(conversationId);
      if (!row) throw new Error(`conversation ${conversationId} vanished inside its own transaction`);
      conversation = toConversation(row);
    }
    if (change?.type === 'take') {
      const { owner, expiresAt, from } = change;
      const taken = take.get({
        id: turnId,
        owner,
        expires: expiresAt,
        now: at,
        fromStatus: from.status,
        fromToken: from.leaseToken,
      });
      if (!taken) return { type: 'taken' };
      turn = toTurn(taken);
    } else if (change?.type === 'end') {
      const { status, error } = change;
      end.run({
        id: turnId,
        status,
        now: at,
        errorCode: error?.code ?? null,
        errorMessage: error?.message ?? null,
        stoppedBy: error?.stoppedBy ?? null,
      });
    }
    for (const { transcriptId, message } of writes.messages) appendMessage(turnId, transcriptId, message, at);
    const approvals = writes.approvals.map((approval) => createApproval(approval, at).approval);
    if (writes.forgetStart) forgetStart.run(writes.forgetStart.transcriptId, writes.forgetStart.toolCallId);
    if (writes.kv !== undefined) saveKv.run(writes.kv, conversationId);
    if (writes.kvSnapshot !== undefined) snapshotKv.run(writes.kvSnapshot, turnId);
    if (writes.markReady) markReady(turnId, at);
    writeOutbox([...writes.outbox, ...(writes.outboxFor?.(approvals) ?? [])], at);
    return { type: 'applied', turn, conversation, approvals };
  };
}

/**
 * Marks an awaiting turn ready to resume once none of its requests is undecided; inside the commit that
 * decided (or expired) the last one.
 */
export function prepareReadyMark({ db }: SqliteContext): (turnId: string, at: number) => void {
  const mark = db.prepare(
    `UPDATE turns SET ready_at = @at WHERE id = @turnId AND status = 'awaiting_approval' AND ready_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = @turnId AND a.resolved_at IS NULL)`,
  );
  return (turnId, at) => {
    mark.run({ turnId, at });
  };
}
