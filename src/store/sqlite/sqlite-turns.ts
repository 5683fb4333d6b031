import { conversationId } from '../conversation-id.js';
import { type KvSnapshot, kvSnapshotSchema } from '../kv-snapshot.js';
import type { Approval, Turn } from '../records.js';
import {
  type ConversationRow,
  parseJsonColumn,
  type TurnRow,
  toConversation,
  toTurn,
} from '../row-mappers.js';
import { type AdmissionLimits, admitTurn } from '../rules/admit-turn.js';
import type {
  Effects,
  EnqueueResult,
  Fence,
  Lease,
  NewTurn,
  RecoverableTurns,
  SuspendBatch,
  TurnFailure,
  TurnStore,
} from '../store.js';
import { prepareApprovalCreate } from './sqlite-approval-rows.js';
import { activeStatuses, prepareReadyMark, prepareTurnClaim } from './sqlite-claim.js';
import { prepareFenceCheck, type SqliteContext, writeTransaction } from './sqlite-context.js';
import { prepareOutboxWriter } from './sqlite-outbox.js';
import { prepareMessageAppend } from './sqlite-transcript.js';

export function createSqliteTurns(context: SqliteContext): TurnStore {
  const { db, now } = context;
  const checkFence = prepareFenceCheck(context);
  const writeOutbox = prepareOutboxWriter(context);
  const byId = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE id = ?');
  const byTrigger = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE trigger_key = ?');
  const insertConversation = db.prepare(
    `INSERT INTO conversations (id, team_id, channel_id, thread_ts, created_at)
     VALUES (@id, @teamId, @channelId, @threadTs, @now) ON CONFLICT (id) DO NOTHING`,
  );
  const selectConversation = db.prepare<[string], ConversationRow>(
    'SELECT * FROM conversations WHERE id = ?',
  );
  const insertTurn = db.prepare(
    `INSERT INTO turns (id, conversation_id, status, trigger_key, trigger_ts, requested_by, input_text,
       created_at, updated_at)
     VALUES (@turnId, @conversationId, 'queued', @triggerKey, @triggerTs, @requestedBy, @inputText, @now, @now)
     ON CONFLICT (trigger_key) DO NOTHING`,
  );
  const settleInbound = db.prepare('DELETE FROM inbound_messages WHERE key = ?');
  const renew = db.prepare(
    `UPDATE turns SET lease_expires_at = @expires
     WHERE id = @id AND status = 'running' AND lease_owner = @owner AND lease_token = @token`,
  );
  const appendAnswer = db.prepare(
    `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, created_at)
     VALUES (@conversationId, @conversationId, @turnId, 'assistant', @content, @now)`,
  );
  const saveKv = db.prepare('UPDATE conversations SET kv_json = @kv WHERE id = @conversationId');
  const finish = db.prepare(
    `UPDATE turns SET status = @status, lease_owner = NULL, lease_expires_at = NULL, updated_at = @now,
       error_code = @errorCode, error_message = @errorMessage, stopped_by = @stoppedBy
     WHERE id = @id`,
  );
  const failAny = db.prepare(
    `UPDATE turns SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL, updated_at = @now,
       error_code = @errorCode, error_message = @errorMessage, stopped_by = @stoppedBy
     WHERE id = @id AND status IN ${activeStatuses}`,
  );
  // Decided or not: a request decided from the inbox before this commit still carries the turn's kv.
  const newestApproval = db.prepare<[string], { request_id: string }>(
    'SELECT request_id FROM approvals WHERE turn_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1',
  );
  const snapshotKv = db.prepare('UPDATE approvals SET kv_snapshot_json = @kv WHERE request_id = @requestId');
  const releaseLease = db.prepare(
    `UPDATE turns SET lease_owner = NULL, lease_expires_at = NULL, updated_at = @now
     WHERE id = @id AND status = 'running' AND lease_owner = @owner AND lease_token = @token`,
  );
  const oldestQueued = db.prepare<[string], TurnRow>(
    `SELECT * FROM turns WHERE conversation_id = ? AND status = 'queued' ORDER BY seq LIMIT 1`,
  );
  const openTurns = db.prepare<[string], TurnRow>(
    `SELECT * FROM turns WHERE conversation_id = ? AND status IN ('queued', 'running', 'awaiting_approval')
     ORDER BY seq`,
  );
  const activeCount = db.prepare<[string], { n: number }>(
    `SELECT EXISTS (SELECT 1 FROM turns WHERE conversation_id = ? AND status IN ('running', 'awaiting_approval'))
       AS n`,
  );
  // All three use turns_open: their cost follows the open turns, not the history.
  const runnableQueued = db.prepare<[], TurnRow>(
    // The IN list repeats turns_open's condition word for word: only then does SQLite use that partial
    // index, instead of scanning every turn ever stored at boot and on every sweep.
    `SELECT t.* FROM turns t
     WHERE t.status IN ${activeStatuses} AND t.status = 'queued'
       AND t.seq = (SELECT min(seq) FROM turns q WHERE q.conversation_id = t.conversation_id AND q.status = 'queued')
       AND NOT EXISTS (SELECT 1 FROM turns r WHERE r.conversation_id = t.conversation_id
                       AND r.status IN ('running', 'awaiting_approval'))
     ORDER BY t.seq`,
  );
  const running = db.prepare<[], TurnRow>(
    `SELECT * FROM turns WHERE status IN ${activeStatuses} AND status = 'running' ORDER BY seq`,
  );
  const decidedAwaiting = db.prepare<[], TurnRow>(
    `SELECT * FROM turns WHERE status = 'awaiting_approval' AND ready_at IS NOT NULL ORDER BY ready_at`,
  );
  const markReady = prepareReadyMark(context);
  const latestSnapshot = db.prepare<[string], { kv_snapshot_json: string; request_id: string }>(
    `SELECT kv_snapshot_json, request_id FROM approvals
     WHERE turn_id = ? AND kv_snapshot_json IS NOT NULL ORDER BY created_at DESC, rowid DESC LIMIT 1`,
  );

  // `LIMIT +?`: SQLite compiles a bare bound LIMIT's value into the plan, so it would recompile every run.
  // Counted up to the limit only: a backlog of thousands costs no more than the limit to check.
  const unfinishedInThread = db.prepare<[string, number], { n: number }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM turns WHERE conversation_id = ? AND status IN ${activeStatuses} LIMIT +?)`,
  );
  const unfinishedByUser = db.prepare<[string, number], { n: number }>(
    `SELECT count(*) AS n FROM (SELECT 1 FROM turns WHERE requested_by = ? AND status IN ${activeStatuses} LIMIT +?)`,
  );

  const claimInside = prepareTurnClaim(context);
  const appendMessage = prepareMessageAppend(context);
  const createApproval = prepareApprovalCreate(context);

  const enqueue = writeTransaction(
    db,
    (turn: NewTurn, lease?: Lease, limits?: AdmissionLimits): EnqueueResult => {
      const at = now();
      const id = conversationId(turn);
      if (turn.inboundKey !== undefined) settleInbound.run(turn.inboundKey);
      const duplicate = byTrigger.get(turn.triggerKey);
      if (duplicate) return { type: 'duplicate', turn: toTurn(duplicate) };
      if (limits) {
        const admission = admitTurn(
          {
            inThread: unfinishedInThread.get(id, limits.perThread)?.n ?? 0,
            byUser: unfinishedByUser.get(turn.requestedBy, limits.perUser)?.n ?? 0,
          },
          limits,
        );
        if (admission.type === 'refuse')
          return { type: 'refused', reason: admission.reason, unfinished: admission.unfinished };
      }
      insertConversation.run({ ...turn, id, now: at });
      const inserted = insertTurn.run({ ...turn, conversationId: id, now: at });
      if (inserted.changes === 0) {
        const existing = byTrigger.get(turn.triggerKey);
        if (!existing) throw new Error(`turn ${turn.turnId} vanished inside its own transaction`);
        return { type: 'duplicate', turn: toTurn(existing) };
      }
      const conversation = selectConversation.get(id);
      if (!conversation) throw new Error(`conversation ${id} vanished inside its own transaction`);
      // Starting right away in the same commit saves a transaction on the hot path; a busy conversation
      // leaves the turn queued for the scheduler. The claim reads the new row, so it is read once.
      const started = lease ? claimInside(turn.turnId, lease) : undefined;
      const record = toConversation(conversation);
      if (started?.type === 'claimed') {
        const claim = { ...started, conversation: record };
        return { type: 'enqueued', turn: started.turn, conversation: record, claim };
      }
      const queued = started?.turn ?? queuedTurn(byId.get(turn.turnId), turn.turnId);
      return { type: 'enqueued', turn: queued, conversation: record, claim: undefined };
    },
  );

  const claim = writeTransaction(db, claimInside);
  const renewLease = writeTransaction(
    db,
    (fence: Fence, durationMs: number) =>
      renew.run({ id: fence.turnId, owner: fence.owner, token: fence.token, expires: now() + durationMs })
        .changes === 1,
  );
  const release = writeTransaction(db, (fence: Fence) => {
    releaseLease.run({ id: fence.turnId, owner: fence.owner, token: fence.token, now: now() });
  });

  const complete = writeTransaction(
    db,
    (fence: Fence, result: { answer: string; kv: KvSnapshot }, effects: Effects = {}) => {
      // The fence check returns the turn's conversation, so completing reads no other row.
      const holder = checkFence(fence);
      const at = now();
      appendAnswer.run({
        conversationId: holder.conversationId,
        turnId: fence.turnId,
        content: result.answer,
        now: at,
      });
      saveKv.run({ kv: JSON.stringify(result.kv), conversationId: holder.conversationId });
      finish.run({
        id: fence.turnId,
        status: 'completed',
        now: at,
        errorCode: null,
        errorMessage: null,
        stoppedBy: null,
      });
      writeOutbox(effects.outbox ?? [], at);
    },
  );

  const forgetStart = db.prepare('DELETE FROM tool_executions WHERE transcript_id = ? AND tool_call_id = ?');
  const suspend = writeTransaction(
    db,
    (fence: Fence, kv: KvSnapshot, effects: Effects = {}, batch?: SuspendBatch): Approval[] => {
      checkFence(fence);
      const at = now();
      const approvals: Approval[] = [];
      if (batch) {
        if (batch.message) appendMessage(fence.turnId, batch.transcriptId, batch.message, at);
        for (const approval of batch.approvals) approvals.push(createApproval(approval, at).approval);
        if (batch.restartCall) forgetStart.run(batch.restartCall.transcriptId, batch.restartCall.toolCallId);
      }
      // Invariant 5: the kv snapshot commits with the status change, so a resume anywhere restores it.
      const newest = newestApproval.get(fence.turnId);
      if (newest) snapshotKv.run({ kv: JSON.stringify(kv), requestId: newest.request_id });
      finish.run({
        id: fence.turnId,
        status: 'awaiting_approval',
        now: at,
        errorCode: null,
        errorMessage: null,
        stoppedBy: null,
      });
      // Decided already (from the inbox, while the turn was still running): ready to resume at once.
      markReady(fence.turnId, at);
      writeOutbox([...(effects.outbox ?? []), ...(batch?.outboxFor?.(approvals) ?? [])], at);
      return approvals;
    },
  );

  const fail = writeTransaction(
    db,
    (target: Fence | { turnId: string }, error: TurnFailure, effects: Effects = {}) => {
      const at = now();
      const params = {
        id: target.turnId,
        now: at,
        errorCode: error.code,
        errorMessage: error.message,
        stoppedBy: error.stoppedBy ?? null,
      };
      if ('token' in target) {
        checkFence(target);
        finish.run({ ...params, status: 'failed' });
      } else if (failAny.run(params).changes === 0) {
        return;
      }
      writeOutbox(effects.outbox ?? [], at);
    },
  );

  return {
    enqueue: async (turn, lease, limits) => enqueue(turn, lease, limits),
    async get(id) {
      const row = byId.get(id);
      return row ? toTurn(row) : undefined;
    },
    claim: async (turnId, lease, options) => claim(turnId, lease, options),
    renewLease: async (fence, durationMs) => renewLease(fence, durationMs),
    complete: async (fence, result, effects) => complete(fence, result, effects),
    suspend: async (fence, kv, effects, batch) => suspend(fence, kv, effects, batch),
    fail: async (target, error, effects) => fail(target, error, effects),
    release: async (fence) => release(fence),
    async nextRunnable(conversationId) {
      if ((activeCount.get(conversationId)?.n ?? 0) > 0) return undefined;
      const row = oldestQueued.get(conversationId);
      return row ? toTurn(row) : undefined;
    },
    async open(conversationId) {
      return openTurns.all(conversationId).map(toTurn);
    },
    async recoverable(): Promise<RecoverableTurns> {
      return {
        queued: runnableQueued.all().map(toTurn),
        running: running.all().map(toTurn),
        decidedAwaiting: decidedAwaiting.all().map(toTurn),
      };
    },
    async resumeKv(turnId) {
      const row = latestSnapshot.get(turnId);
      if (!row) return undefined;
      return parseJsonColumn(kvSnapshotSchema, row.kv_snapshot_json, {
        table: 'approvals',
        key: row.request_id,
      });
    },
  };
}

function queuedTurn(row: TurnRow | undefined, turnId: string): Turn {
  if (!row) throw new Error(`turn ${turnId} vanished inside its own transaction`);
  return toTurn(row);
}
