import { conversationId } from '../conversation-id.js';
import type { KvSnapshot } from '../kv-snapshot.js';
import { kvSnapshotSchema } from '../kv-snapshot.js';
import { parseJsonColumn, type TurnRow, toTurn } from '../row-mappers.js';
import type { AdmissionLimits } from '../rules/admit-turn.js';
import { countLimits, enqueueOutcome, planEnqueue } from '../rules/plan-enqueue.js';
import { planComplete, planFail, planSuspend } from '../rules/plan-turn.js';
import type { Effects, EnqueueResult, Lease, NewTurn, SuspendBatch, TurnStore } from '../store.js';
import { activeStatuses, claimInside } from './pg-claim.js';
import { autocommit, type PgContext, read, type Tx, transaction } from './pg-context.js';
import { workChannel } from './pg-notifications.js';
import { applyTurnWrites, holderInside } from './pg-turn-writes.js';

async function turnOfTrigger(tx: Tx, turn: NewTurn) {
  const existing = await tx.one<TurnRow>('SELECT * FROM turns WHERE trigger_key = $1', [turn.triggerKey]);
  if (!existing) throw new Error(`turn ${turn.turnId} conflicted without a row`);
  return toTurn(existing);
}

export function createPgTurns(context: PgContext): TurnStore {
  const enqueue = (turn: NewTurn, lease?: Lease, limits?: AdmissionLimits) =>
    transaction(context, async (tx): Promise<EnqueueResult> => {
      const id = conversationId(turn);
      tx.lockConversation(id);
      // Two of one person's messages in different threads hold different thread locks: without this, both
      // would count the same unfinished work under READ COMMITTED and both be admitted past the limit.
      if (limits) tx.lockPerson(turn.requestedBy);
      // Under the lock, one read: is this message a turn already, and what is unfinished (counted up to
      // what the plan needs only, so a backlog costs no more than the limit to check).
      const counted = countLimits(lease, limits);
      const facts = await tx.one<{ duplicate: boolean; in_thread: number; by_user: number }>(
        `SELECT EXISTS (SELECT 1 FROM turns WHERE trigger_key = $1) AS duplicate,
           (SELECT count(*) FROM (SELECT 1 FROM turns WHERE conversation_id = $2 AND status IN ${activeStatuses}
             LIMIT $3) t)::int AS in_thread,
           (SELECT count(*) FROM (SELECT 1 FROM turns WHERE requested_by = $4 AND status IN ${activeStatuses}
             LIMIT $5) u)::int AS by_user`,
        [turn.triggerKey, id, counted.inThread, turn.requestedBy, counted.byUser],
      );
      const snapshot = {
        duplicate: facts?.duplicate ? await turnOfTrigger(tx, turn) : undefined,
        unfinishedInThread: facts?.in_thread ?? 0,
        unfinishedByUser: facts?.by_user ?? 0,
      };
      const plan = planEnqueue(snapshot, turn, id, { lease, limits, at: tx.now });
      const outcome = enqueueOutcome(plan, await applyTurnWrites(tx, plan.writes));
      return outcome.type === 'raced' ? { type: 'duplicate', turn: await turnOfTrigger(tx, turn) } : outcome;
    });

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
        await applyTurnWrites(tx, planComplete(await holderInside(tx, fence.turnId), fence, result, effects));
      }),
    suspend: (fence, kv, effects: Effects = {}, batch?: SuspendBatch) =>
      transaction(context, async (tx) => {
        const writes = planSuspend(await holderInside(tx, fence.turnId), fence, kv, effects, batch);
        const applied = await applyTurnWrites(tx, writes);
        return applied.type === 'applied' ? applied.approvals : [];
      }),
    fail: (target, error, effects: Effects = {}) =>
      transaction(context, async (tx) => {
        const writes = planFail(await holderInside(tx, target.turnId), target, error, effects);
        if (writes) await applyTurnWrites(tx, writes);
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
