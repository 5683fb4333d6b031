import { type DeliveryProgress, type NewOutboxEntry, planRequestIds } from '../outbox-message.js';
import { type OutboxRow, toOutboxEntry } from '../row-mappers.js';
import type { ClaimToken, CompletedDelivery, Lease, OutboxStore } from '../store.js';
import { outboxCommitNoticesOf } from './outbox-commit-notices.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';

export { type OutboxRow, toOutboxEntry } from '../row-mappers.js';

/**
 * Writes outbox rows inside a caller's transaction: the effect commits with the state change that causes
 * it, or not at all. A key already written is left alone, so a retried state change posts nothing twice.
 */
export function prepareOutboxWriter({ db }: SqliteContext) {
  const notices = outboxCommitNoticesOf(db);
  const insert = db.prepare(
    `INSERT INTO outbox (key, conversation_id, turn_id, request_id, message_json, next_attempt_at, created_at)
     VALUES (@key, @conversationId, @turnId, @requestId, @message, @now, @now)
     ON CONFLICT (key) DO NOTHING`,
  );
  return (entries: readonly NewOutboxEntry[], at: number): number[] => {
    const ids: number[] = [];
    for (const entry of entries) {
      const result = insert.run({
        key: entry.key,
        conversationId: entry.conversationId,
        turnId: entry.turnId ?? null,
        requestId: entry.requestId ?? null,
        message: JSON.stringify(entry.message),
        now: at,
      });
      if (result.changes === 1) {
        ids.push(Number(result.lastInsertRowid));
        notices.wrote(entry.conversationId);
      }
    }
    return ids;
  };
}

export function createSqliteOutbox(context: SqliteContext): OutboxStore {
  const { db, now } = context;
  const write = prepareOutboxWriter(context);
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
  const takeClaim = db.prepare(
    `UPDATE outbox SET claim_owner = @owner, claim_token = claim_token + 1, claim_expires_at = @expires,
       attempts = attempts + 1,
       -- A claim that lapsed (or was taken from a dead owner) without an outcome may have posted.
       in_doubt = CASE WHEN claim_owner IS NOT NULL THEN 1 ELSE in_doubt END
     WHERE id = @id AND status = 'pending' AND next_attempt_at <= @now
       AND (claim_owner IS NULL OR claim_expires_at < @now OR claim_owner = @takeOverFrom)`,
  );
  const progress = db.prepare(
    `UPDATE outbox SET progress_json = @progress, claim_expires_at = @expires
     WHERE id = @id AND status = 'pending' AND claim_owner = @owner AND claim_token = @token`,
  );
  const finish = db.prepare(
    `UPDATE outbox SET status = @status, progress_json = @progress, claim_owner = NULL, claim_expires_at = NULL,
       in_doubt = 0, last_error = @error, finished_at = @now
     WHERE id = @id AND status = 'pending' AND claim_owner = @owner AND claim_token = @token`,
  );
  // A delivery marker rides in whichever commit comes next, often on a turn's path: one statement, which
  // says whether the row was a card without reading and parsing the whole row back.
  const delivered = db.prepare<
    { id: number; progress: string; owner: string; token: number; now: number },
    { type: string | null; requestId: string | null; requestIds: string | null }
  >(
    `UPDATE outbox SET status = 'sent', progress_json = @progress, claim_owner = NULL, claim_expires_at = NULL,
       in_doubt = 0, last_error = NULL, finished_at = @now
     WHERE id = @id AND status = 'pending' AND claim_owner = @owner AND claim_token = @token
     RETURNING json_extract(message_json, '$.type') AS type, json_extract(message_json, '$.requestId') AS requestId,
       json_extract(message_json, '$.requestIds') AS requestIds`,
  );
  const retry = db.prepare(
    `UPDATE outbox SET claim_owner = NULL, claim_expires_at = NULL, in_doubt = @inDoubt, next_attempt_at = @next,
       last_error = @error, attempts = attempts - @waited
     WHERE id = @id AND status = 'pending' AND claim_owner = @owner AND claim_token = @token`,
  );
  const insertCard = db.prepare(
    `INSERT INTO approval_cards (channel, ts, request_id, posted_at) VALUES (@channel, @ts, @requestId, @now)
     ON CONFLICT (channel, ts, request_id) DO NOTHING`,
  );
  const audit = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
     VALUES (@at, 'holdfast', 'delivery.failed', @approvalId, @conversationId, @data)`,
  );

  const enqueue = writeTransaction(db, (entries: readonly NewOutboxEntry[]) => {
    const ids = write(entries, now());
    return ids.map((id) => toOutboxEntry(byId.get(id) as OutboxRow));
  });

  const claim = writeTransaction(db, (id: number, lease: Lease, takeOverFrom: string | null) => {
    const at = now();
    const changed = takeClaim.run({
      id,
      owner: lease.owner,
      expires: at + lease.durationMs,
      now: at,
      takeOverFrom,
    });
    if (changed.changes === 0) return undefined;
    const row = byId.get(id);
    return row ? toOutboxEntry(row) : undefined;
  });

  const completeOne = (id: number, token: ClaimToken, sent: DeliveryProgress, at: number): boolean => {
    const row = delivered.get({
      id,
      progress: JSON.stringify(sent),
      owner: token.owner,
      token: token.token,
      now: at,
    });
    if (!row) return false;
    // A posted card (the thread's, or a copy in an approver's DM) is one of the request's cards from this
    // commit on: clicks on it decide the request, and every rewrite reaches it.
    if ((row.type === 'approval-card' || row.type === 'approver-copy') && row.requestId) {
      for (const part of sent.sent) insertCard.run({ ...part, requestId: row.requestId, now: at });
    }
    // A plan's card is a card of every request it lists.
    if (row.type === 'approval-plan' && row.requestIds) {
      for (const requestId of planRequestIds.parse(JSON.parse(row.requestIds))) {
        for (const part of sent.sent) insertCard.run({ ...part, requestId, now: at });
      }
    }
    return true;
  };
  const complete = writeTransaction(db, (deliveries: readonly CompletedDelivery[]) => {
    const at = now();
    return deliveries.map((delivery) => completeOne(delivery.id, delivery.claim, delivery.progress, at));
  });

  const recordProgress = writeTransaction(
    db,
    (id: number, token: ClaimToken, sent: DeliveryProgress, extendByMs: number) =>
      progress.run({
        id,
        progress: JSON.stringify(sent),
        owner: token.owner,
        token: token.token,
        expires: now() + extendByMs,
      }).changes === 1,
  );
  const retryLater = writeTransaction(
    db,
    (
      id: number,
      token: ClaimToken,
      next: { nextAttemptAt: number; error: string; inDoubt?: boolean; waited?: boolean },
    ) =>
      retry.run({
        id,
        owner: token.owner,
        token: token.token,
        next: next.nextAttemptAt,
        error: next.error,
        inDoubt: next.inDoubt ? 1 : 0,
        waited: next.waited ? 1 : 0,
      }).changes === 1,
  );
  const giveUp = writeTransaction(
    db,
    (id: number, token: ClaimToken, failure: { error: string; notify?: readonly NewOutboxEntry[] }) => {
      const at = now();
      const row = byId.get(id);
      if (!row) return false;
      const changed = finish.run({
        id,
        status: 'failed',
        progress: row.progress_json,
        owner: token.owner,
        token: token.token,
        error: failure.error,
        now: at,
      });
      if (changed.changes === 0) return false;
      audit.run({
        at,
        approvalId: row.request_id,
        conversationId: row.conversation_id,
        data: JSON.stringify({ key: row.key, error: failure.error, turnId: row.turn_id }),
      });
      write(failure.notify ?? [], at);
      return true;
    },
  );

  return {
    listen: (listener) => outboxCommitNoticesOf(db).listen(listener),
    enqueue: async (entries) => enqueue(entries),
    async get(id) {
      const row = byId.get(id);
      return row ? toOutboxEntry(row) : undefined;
    },
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
    claim: async (id, lease, options) => claim(id, lease, options?.takeOverFrom ?? null),
    recordProgress: async (id, token, sent, extendByMs) => recordProgress(id, token, sent, extendByMs),
    complete: async (deliveries) => complete(deliveries),
    retryLater: async (id, token, next) => retryLater(id, token, next),
    giveUp: async (id, token, failure) => giveUp(id, token, failure),
  };
}
