import type { DeliveryProgress, NewOutboxEntry } from '../outbox-message.js';
import { type OutboxRow, toOutboxEntry } from '../row-mappers.js';
import {
  type OutboxPlan,
  type OutboxSnapshot,
  type OutboxWrites,
  planClaim,
  planComplete,
  planGiveUp,
  planOutboxWrite,
  planProgress,
  planRetry,
} from '../rules/plan-outbox.js';
import type { ClaimToken, CompletedDelivery, Lease, OutboxStore } from '../store.js';
import { outboxCommitNoticesOf } from './outbox-commit-notices.js';
import { prepareCardInsert } from './sqlite-approval-rows.js';
import { prepareAuditInsert } from './sqlite-audit.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

export { type OutboxRow, toOutboxEntry } from '../row-mappers.js';

type RetryLater = Parameters<OutboxStore['retryLater']>[2];
type GiveUp = Parameters<OutboxStore['giveUp']>[2];

/**
 * Writes outbox rows inside a caller's transaction: the effect commits with the state change that causes
 * it, or not at all. A key already written is left alone, so a retried state change posts nothing twice.
 */
export function prepareOutboxWriter(context: SqliteContext) {
  const insert = prepareOutboxInsert(context);
  return (entries: readonly NewOutboxEntry[], at: number): number[] => insert(planOutboxWrite(entries, at));
}

function prepareOutboxInsert({ db }: SqliteContext) {
  const notices = outboxCommitNoticesOf(db);
  const insert = db.prepare(
    `INSERT INTO outbox (key, conversation_id, turn_id, request_id, message_json, next_attempt_at, created_at)
     VALUES (@key, @conversationId, @turnId, @requestId, @messageJson, @nextAttemptAt, @createdAt)
     ON CONFLICT (key) DO NOTHING`,
  );
  return (rows: OutboxWrites['insert']): number[] => {
    const ids: number[] = [];
    for (const row of rows) {
      const result = insert.run(row);
      if (result.changes === 1) {
        ids.push(Number(result.lastInsertRowid));
        notices.wrote(row.conversationId);
      }
    }
    return ids;
  };
}

/** Applies an outbox plan's writes; false when the row's fence no longer holds (nothing is written then). */
function prepareOutboxApply(context: SqliteContext) {
  const { db } = context;
  const insert = prepareOutboxInsert(context);
  const update = db.prepare(
    `UPDATE outbox SET status = @status, claim_owner = @claimOwner, claim_token = @claimToken,
       claim_expires_at = @claimExpiresAt, attempts = @attempts, in_doubt = @inDoubt,
       next_attempt_at = @nextAttemptAt, progress_json = @progress, last_error = @lastError,
       finished_at = @finishedAt
     WHERE id = @id AND status = 'pending' AND claim_owner IS @fenceOwner AND claim_token = @fenceToken`,
  );
  const insertCard = prepareCardInsert(context);
  const audit = prepareAuditInsert(context);
  return (writes: OutboxWrites, at: number): boolean => {
    if (writes.update) {
      const { id, fence, set } = writes.update;
      const changed = update.run({
        id,
        fenceOwner: fence.owner,
        fenceToken: fence.token,
        status: set.status,
        claimOwner: set.claim?.owner ?? null,
        claimToken: set.claimToken,
        claimExpiresAt: set.claim?.expiresAt ?? null,
        attempts: set.attempts,
        inDoubt: set.inDoubt ? 1 : 0,
        nextAttemptAt: set.nextAttemptAt,
        progress: JSON.stringify(set.progress),
        lastError: set.lastError,
        finishedAt: set.finishedAt,
      });
      if (changed.changes === 0) return false;
    }
    for (const card of writes.cards) insertCard(card, at);
    for (const event of writes.audit) audit(event, at);
    insert(writes.insert);
    return true;
  };
}

export function createSqliteOutbox(context: SqliteContext): OutboxStore {
  const { db, now } = context;
  const insert = prepareOutboxInsert(context);
  const apply = prepareOutboxApply(context);
  const byId = db.prepare<[number], OutboxRow>('SELECT * FROM outbox WHERE id = ?');
  const nextPending = db.prepare<[string, number], OutboxRow>(
    `SELECT * FROM outbox WHERE conversation_id = ? AND status = 'pending' AND id > ? ORDER BY id LIMIT 1`,
  );
  // `LIMIT +?`: SQLite compiles a bare bound LIMIT's value into the plan, so it would recompile every run.
  // Uses outbox_due: proportional to what is waiting, never to history.
  const due = db.prepare<[number, number, number], OutboxRow>(
    `SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ?
       AND (claim_owner IS NULL OR claim_expires_at < ?)
     ORDER BY next_attempt_at LIMIT +?`,
  );
  // Only rows in flight match: a handful, whatever the history. Without the hint SQLite walks the
  // primary key for the ORDER BY, through every delivery ever made.
  const held = db.prepare<[number, number], OutboxRow>(
    `SELECT * FROM outbox INDEXED BY outbox_due WHERE status = 'pending' AND claim_owner IS NOT NULL AND claim_expires_at >= ?
     ORDER BY id LIMIT +?`,
  );

  /** Reads the row, plans the transition and applies it, inside the caller's transaction. */
  const transition = (id: number, plan: (snapshot: OutboxSnapshot, at: number) => OutboxPlan) => {
    const at = now();
    const row = byId.get(id);
    if (!row) return undefined;
    const planned = plan({ row: toOutboxEntry(row), claimToken: row.claim_token }, at);
    return planned.type === 'planned' && apply(planned.writes, at) ? planned.row : undefined;
  };

  const enqueue = writeTransaction(db, (entries: readonly NewOutboxEntry[]) =>
    insert(planOutboxWrite(entries, now())).map((id) => toOutboxEntry(byId.get(id) as OutboxRow)),
  );
  const claim = writeTransaction(db, (id: number, lease: Lease, takeOverFrom: string | undefined) =>
    transition(id, (snapshot, at) => planClaim(snapshot, lease, takeOverFrom, at)),
  );
  const recordProgress = writeTransaction(
    db,
    (id: number, token: ClaimToken, progress: DeliveryProgress, extendByMs: number) =>
      transition(id, (snapshot, at) => planProgress(snapshot, token, progress, extendByMs, at)) !== undefined,
  );
  const complete = writeTransaction(db, (deliveries: readonly CompletedDelivery[]) =>
    deliveries.map(
      (delivery) =>
        transition(delivery.id, (snapshot, at) => planComplete(snapshot, delivery, at)) !== undefined,
    ),
  );
  const retryLater = writeTransaction(
    db,
    (id: number, token: ClaimToken, retry: RetryLater) =>
      transition(id, (snapshot) => planRetry(snapshot, token, retry)) !== undefined,
  );
  const giveUp = writeTransaction(
    db,
    (id: number, token: ClaimToken, failure: GiveUp) =>
      transition(id, (snapshot, at) => planGiveUp(snapshot, token, failure, at)) !== undefined,
  );

  return {
    listen: (listener) => outboxCommitNoticesOf(db).listen(listener),
    enqueue: async (entries) => enqueue(entries),
    async nextPending(conversationId, afterId = 0) {
      const row = nextPending.get(conversationId, afterId);
      return row ? toOutboxEntry(row) : undefined;
    },
    async duePending(limit) {
      const at = now();
      return due.all(at, at, limit).map(toOutboxEntry);
    },
    async heldPending(limit) {
      return held.all(now(), limit).map(toOutboxEntry);
    },
    claim: async (id, lease, options) => claim(id, lease, options?.takeOverFrom),
    recordProgress: async (id, token, progress, extendByMs) =>
      recordProgress(id, token, progress, extendByMs),
    complete: async (deliveries) => complete(deliveries),
    retryLater: async (id, token, retry) => retryLater(id, token, retry),
    giveUp: async (id, token, failure) => giveUp(id, token, failure),
  };
}
