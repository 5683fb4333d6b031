import { conversationId } from '../conversation-id.js';
import { type KvSnapshot, kvSnapshotSchema } from '../kv-snapshot.js';
import type { Approval, Turn } from '../records.js';
import { parseJsonColumn, type TurnRow, toTurn } from '../row-mappers.js';
import type { AdmissionLimits } from '../rules/admit-turn.js';
import { countLimits, enqueueOutcome, planEnqueue } from '../rules/plan-enqueue.js';
import { planComplete, planFail, planSuspend } from '../rules/plan-turn.js';
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
import { activeStatuses, prepareTurnClaim } from './sqlite-claim.js';
import { prepareHolderRead, type SqliteContext, writeTransaction } from './sqlite-context.js';
import { prepareTurnWrites } from './sqlite-turn-writes.js';

export function createSqliteTurns(context: SqliteContext): TurnStore {
  const { db, now } = context;
  const byId = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE id = ?');
  const byTrigger = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE trigger_key = ?');
  const renew = db.prepare(
    `UPDATE turns SET lease_expires_at = @expires
     WHERE id = @id AND status = 'running' AND lease_owner = @owner AND lease_token = @token`,
  );
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

  const holderOf = prepareHolderRead(context);
  const apply = prepareTurnWrites(context);
  const claimInside = prepareTurnClaim(context, apply);

  const enqueue = writeTransaction(
    db,
    (turn: NewTurn, lease?: Lease, limits?: AdmissionLimits): EnqueueResult => {
      const at = now();
      const id = conversationId(turn);
      const counted = countLimits(lease, limits);
      const duplicate = byTrigger.get(turn.triggerKey);
      const snapshot = {
        duplicate: duplicate ? toTurn(duplicate) : undefined,
        unfinishedInThread: counted.inThread > 0 ? (unfinishedInThread.get(id, counted.inThread)?.n ?? 0) : 0,
        unfinishedByUser:
          counted.byUser > 0 ? (unfinishedByUser.get(turn.requestedBy, counted.byUser)?.n ?? 0) : 0,
      };
      const plan = planEnqueue(snapshot, turn, id, { lease, limits, at });
      const outcome = enqueueOutcome(plan, apply(plan.writes, at));
      // One message delivered twice at once: the other insert won.
      if (outcome.type === 'raced')
        return { type: 'duplicate', turn: existingTurn(byTrigger.get(turn.triggerKey), turn.turnId) };
      return outcome;
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
      apply(planComplete(holderOf(fence.turnId), fence, result, effects), now());
    },
  );

  const suspend = writeTransaction(
    db,
    (fence: Fence, kv: KvSnapshot, effects: Effects = {}, batch?: SuspendBatch): Approval[] => {
      const applied = apply(planSuspend(holderOf(fence.turnId), fence, kv, effects, batch), now());
      return applied.type === 'applied' ? applied.approvals : [];
    },
  );

  const fail = writeTransaction(
    db,
    (target: Fence | { turnId: string }, error: TurnFailure, effects: Effects = {}) => {
      const writes = planFail(holderOf(target.turnId), target, error, effects);
      if (writes) apply(writes, now());
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

function existingTurn(row: TurnRow | undefined, turnId: string): Turn {
  if (!row) throw new Error(`turn ${turnId} vanished inside its own transaction`);
  return toTurn(row);
}
