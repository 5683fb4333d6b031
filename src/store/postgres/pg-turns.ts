import { z } from 'zod';
import { conversationId } from '../conversation-id.js';
import type { KvSnapshot } from '../kv-snapshot.js';
import { kvSnapshotSchema } from '../kv-snapshot.js';
import type { Approval } from '../records.js';
import { parseJsonColumn, type TurnRow, toConversation, toTurn } from '../row-mappers.js';
import { type AdmissionLimits, admitTurn } from '../rules/admit-turn.js';
import type {
  Effects,
  EnqueueResult,
  Fence,
  Lease,
  NewTurn,
  SuspendBatch,
  TurnFailure,
  TurnStore,
} from '../store.js';
import { createApprovalInside } from './pg-approval-rows.js';
import {
  activeStatuses,
  type ClaimRow,
  claimInside,
  claimRead,
  lockTurnConversation,
  lockTurnConversationOf,
  markReady,
} from './pg-claim.js';
import { autocommit, checkFence, type PgContext, read, type Tx, transaction } from './pg-context.js';
import { appendLater } from './pg-messages.js';
import { workChannel } from './pg-notifications.js';
import { writeOutbox } from './pg-outbox-writer.js';

/** Tells every replica that a turn left its holder: the thread's next turn, or the turn itself, is free. */
function announce(tx: Tx, conversation: string, turnId: string, event: 'released' | 'finished') {
  tx.notify(workChannel, JSON.stringify({ conversationId: conversation, turnId, event }));
}

function finish(
  tx: Tx,
  turnId: string,
  status: 'completed' | 'failed' | 'awaiting_approval',
  error: TurnFailure | null,
) {
  tx.later(
    `UPDATE turns SET status = $2, lease_owner = NULL, lease_expires_at = NULL, updated_at = $3,
       error_code = $4, error_message = $5, stopped_by = $6
     WHERE id = $1`,
    [turnId, status, tx.now, error?.code ?? null, error?.message ?? null, error?.stoppedBy ?? null],
  );
}

/** A thread's row as `row_to_json` gives it back. */
const conversationRowSchema = z.object({
  id: z.string(),
  team_id: z.string(),
  channel_id: z.string(),
  thread_ts: z.string(),
  kv_json: z.string(),
  created_at: z.number(),
});

async function duplicateOf(tx: Tx, turn: NewTurn): Promise<EnqueueResult> {
  const existing = await tx.one<TurnRow>('SELECT * FROM turns WHERE trigger_key = $1', [turn.triggerKey]);
  if (!existing) throw new Error(`turn ${turn.turnId} conflicted without a row`);
  return { type: 'duplicate', turn: toTurn(existing) };
}

export function createPgTurns(context: PgContext): TurnStore {
  const enqueue = (turn: NewTurn, lease?: Lease, limits?: AdmissionLimits) =>
    transaction(context, async (tx): Promise<EnqueueResult> => {
      const id = conversationId(turn);
      tx.lockConversation(id);
      // Two of one person's messages in different threads hold different thread locks: without this, both
      // would count the same unfinished work under READ COMMITTED and both be admitted past the limit.
      if (limits) tx.lockPerson(turn.requestedBy);
      if (turn.inboundKey !== undefined)
        tx.later('DELETE FROM inbound_messages WHERE key = $1', [turn.inboundKey]);
      // Under the lock, one read: is this message a turn already, and what is unfinished (counted up to
      // the limits only, so a backlog costs no more than the limit to check; nothing without limits).
      const facts = await tx.one<{ duplicate: boolean; in_thread: number; by_user: number }>(
        `SELECT EXISTS (SELECT 1 FROM turns WHERE trigger_key = $1) AS duplicate,
           (SELECT count(*) FROM (SELECT 1 FROM turns WHERE conversation_id = $2 AND status IN ${activeStatuses}
             LIMIT $3) t)::int AS in_thread,
           (SELECT count(*) FROM (SELECT 1 FROM turns WHERE requested_by = $4 AND status IN ${activeStatuses}
             LIMIT $5) u)::int AS by_user`,
        [turn.triggerKey, id, limits?.perThread ?? 0, turn.requestedBy, limits?.perUser ?? 0],
      );
      if (facts?.duplicate) return duplicateOf(tx, turn);
      if (limits) {
        const admission = admitTurn({ inThread: facts?.in_thread ?? 0, byUser: facts?.by_user ?? 0 }, limits);
        if (admission.type === 'refuse')
          return { type: 'refused', reason: admission.reason, unfinished: admission.unfinished };
      }
      tx.later(
        `INSERT INTO conversations (id, team_id, channel_id, thread_ts, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO NOTHING`,
        [id, turn.teamId, turn.channelId, turn.threadTs, tx.now],
      );
      // One Slack message delivered to two replicas at once lands here twice: one insert wins. The thread's
      // row comes back with the turn (inserted just before, or there already); a turn to start at once is
      // read for its claim in the same message.
      const [insertedAnswer, claimAnswer] = await tx.each([
        {
          text: `WITH inserted AS (
                   INSERT INTO turns (id, conversation_id, status, trigger_key, trigger_ts, requested_by, input_text,
                     created_at, updated_at)
                   VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $7)
                   ON CONFLICT (trigger_key) DO NOTHING
                   RETURNING *)
                 SELECT inserted.*, row_to_json(c) AS conversation_row
                 FROM inserted JOIN conversations c ON c.id = inserted.conversation_id`,
          values: [
            turn.turnId,
            id,
            turn.triggerKey,
            turn.triggerTs,
            turn.requestedBy,
            turn.inputText,
            tx.now,
          ],
        },
        ...(lease ? [claimRead(turn.turnId)] : []),
      ]);
      const inserted = insertedAnswer?.rows[0] as (TurnRow & { conversation_row: unknown }) | undefined;
      if (!inserted) return duplicateOf(tx, turn);
      const conversation = conversationRowSchema.parse(inserted.conversation_row);
      const read = claimAnswer?.rows[0] as ClaimRow | undefined;
      const started = lease ? await claimInside(tx, turn.turnId, lease, { locked: true, read }) : undefined;
      return {
        type: 'enqueued',
        turn: started?.type === 'claimed' ? started.turn : toTurn(inserted),
        conversation: toConversation(conversation),
        claim: started?.type === 'claimed' ? started : undefined,
      };
    });

  const lockedFence = async (tx: Tx, fence: Fence) => {
    lockTurnConversation(tx, fence.turnId);
    return checkFence(tx, fence);
  };

  return {
    enqueue,
    async get(id) {
      const [row] = await read<TurnRow>(context, 'SELECT * FROM turns WHERE id = $1', [id]);
      return row ? toTurn(row) : undefined;
    },
    claim: (turnId, lease, options) => transaction(context, (tx) => claimInside(tx, turnId, lease, options)),
    async renewLease(fence, durationMs) {
      const { changed } = await autocommit(context, (now) => ({
        text: `UPDATE turns SET lease_expires_at = ${now} + $4
               WHERE id = $1 AND status = 'running' AND lease_owner = $2 AND lease_token = $3`,
        values: [fence.turnId, fence.owner, fence.token, durationMs],
      }));
      return changed === 1;
    },
    complete: (fence, result: { answer: string; kv: KvSnapshot }, effects: Effects = {}) =>
      transaction(context, async (tx) => {
        const conversation = await lockedFence(tx, fence);
        // Past the fence, nothing needs an answer: every write travels with COMMIT.
        tx.later(
          `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, created_at)
           VALUES ($1, $1, $2, 'assistant', $3, $4)`,
          [conversation, fence.turnId, result.answer, tx.now],
        );
        tx.later('UPDATE conversations SET kv_json = $2 WHERE id = $1', [
          conversation,
          JSON.stringify(result.kv),
        ]);
        finish(tx, fence.turnId, 'completed', null);
        writeOutbox(tx, effects.outbox ?? []);
        announce(tx, conversation, fence.turnId, 'finished');
      }),
    suspend: (fence, kv, effects: Effects = {}, batch?: SuspendBatch) =>
      transaction(context, async (tx) => {
        await lockedFence(tx, fence);
        const approvals: Approval[] = [];
        if (batch) {
          if (batch.message) appendLater(tx, fence.turnId, batch.transcriptId, batch.message);
          for (const approval of batch.approvals)
            approvals.push((await createApprovalInside(tx, approval)).approval);
          if (batch.restartCall)
            tx.later('DELETE FROM tool_executions WHERE transcript_id = $1 AND tool_call_id = $2', [
              batch.restartCall.transcriptId,
              batch.restartCall.toolCallId,
            ]);
        }
        // Invariant 5: the kv snapshot commits with the status change, so a resume anywhere restores it.
        tx.later(
          `UPDATE approvals SET kv_snapshot_json = $2 WHERE request_id = (
             SELECT request_id FROM approvals WHERE turn_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1)`,
          [fence.turnId, JSON.stringify(kv)],
        );
        finish(tx, fence.turnId, 'awaiting_approval', null);
        // Decided already (from the inbox, while the turn was still running): ready to resume at once.
        markReady(tx, fence.turnId);
        writeOutbox(tx, [...(effects.outbox ?? []), ...(batch?.outboxFor?.(approvals) ?? [])]);
        return approvals;
      }),
    fail: (target, error, effects: Effects = {}) =>
      transaction(context, async (tx) => {
        let conversation: string;
        if ('token' in target) {
          conversation = await lockedFence(tx, target);
          finish(tx, target.turnId, 'failed', error);
        } else {
          if (!(await lockTurnConversationOf(tx, target.turnId))) return;
          const failed = await tx.one<{ conversation_id: string }>(
            `UPDATE turns SET status = 'failed', lease_owner = NULL, lease_expires_at = NULL, updated_at = $2,
               error_code = $3, error_message = $4, stopped_by = $5
             WHERE id = $1 AND status IN ${activeStatuses}
             RETURNING conversation_id`,
            [target.turnId, tx.now, error.code, error.message, error.stoppedBy ?? null],
          );
          if (!failed) return;
          conversation = failed.conversation_id;
        }
        writeOutbox(tx, effects.outbox ?? []);
        announce(tx, conversation, target.turnId, 'finished');
      }),
    async release(fence) {
      // The lease lapses and the other replicas hear of it, in one statement.
      await autocommit(context, (now) => ({
        text: `WITH released AS (
                 UPDATE turns SET lease_owner = NULL, lease_expires_at = NULL, updated_at = ${now}
                 WHERE id = $1 AND status = 'running' AND lease_owner = $2 AND lease_token = $3
                 RETURNING conversation_id)
               SELECT pg_notify($4, json_build_object('conversationId', conversation_id, 'turnId', $1::text,
                 'event', 'released')::text)
               FROM released`,
        values: [fence.turnId, fence.owner, fence.token, workChannel],
      }));
    },
    async nextRunnable(conversation) {
      const rows = await read<TurnRow>(
        context,
        `SELECT * FROM turns WHERE conversation_id = $1 AND status = 'queued'
           AND NOT EXISTS (SELECT 1 FROM turns r WHERE r.conversation_id = $1
                           AND r.status IN ('running', 'awaiting_approval'))
         ORDER BY seq LIMIT 1`,
        [conversation],
      );
      return rows[0] ? toTurn(rows[0]) : undefined;
    },
    async open(conversation) {
      const rows = await read<TurnRow>(
        context,
        `SELECT * FROM turns WHERE conversation_id = $1 AND status IN ('queued', 'running', 'awaiting_approval')
         ORDER BY seq`,
        [conversation],
      );
      return rows.map(toTurn);
    },
    async recoverable() {
      const [queued, running, decidedAwaiting] = await Promise.all([
        read<TurnRow>(
          context,
          `SELECT t.* FROM turns t
           WHERE t.status = 'queued'
             AND t.seq = (SELECT min(seq) FROM turns q WHERE q.conversation_id = t.conversation_id
                          AND q.status = 'queued')
             AND NOT EXISTS (SELECT 1 FROM turns r WHERE r.conversation_id = t.conversation_id
                             AND r.status IN ('running', 'awaiting_approval'))
           ORDER BY t.seq`,
        ),
        read<TurnRow>(context, `SELECT * FROM turns WHERE status = 'running' ORDER BY seq`),
        read<TurnRow>(
          context,
          `SELECT * FROM turns WHERE status = 'awaiting_approval' AND ready_at IS NOT NULL ORDER BY ready_at`,
        ),
      ]);
      return {
        queued: queued.map(toTurn),
        running: running.map(toTurn),
        decidedAwaiting: decidedAwaiting.map(toTurn),
      };
    },
    async resumeKv(turnId) {
      const [row] = await read<{ kv_snapshot_json: string; request_id: string }>(
        context,
        `SELECT kv_snapshot_json, request_id FROM approvals
         WHERE turn_id = $1 AND kv_snapshot_json IS NOT NULL ORDER BY created_at DESC, seq DESC LIMIT 1`,
        [turnId],
      );
      if (!row) return undefined;
      return parseJsonColumn(kvSnapshotSchema, row.kv_snapshot_json, {
        table: 'approvals',
        key: row.request_id,
      });
    },
  };
}
