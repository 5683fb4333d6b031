import type { DeliveryProgress, NewOutboxEntry } from '../../outbox/outbox-message.js';
import { type OutboxRow, toOutboxEntry } from '../row-mappers.js';
import type { ClaimToken, CompletedDelivery, Lease, OutboxStore } from '../store.js';
import { insertAuditRow } from './pg-audit-chain.js';
import { autocommit, currentTime, type PgContext, read, type Tx, transaction } from './pg-context.js';
import { writeOutbox } from './pg-outbox-writer.js';

const finishSql = `UPDATE outbox SET status = $2, progress_json = $3, claim_owner = NULL, claim_expires_at = NULL,
    in_doubt = 0, last_error = $4, finished_at = $5
  WHERE id = $1 AND status = 'pending' AND claim_owner = $6 AND claim_token = $7
  RETURNING *`;

async function completeOne(tx: Tx, delivery: CompletedDelivery): Promise<boolean> {
  const row = await tx.one<OutboxRow>(finishSql, [
    delivery.id,
    'sent',
    JSON.stringify(delivery.progress),
    null,
    tx.now,
    delivery.claim.owner,
    delivery.claim.token,
  ]);
  if (!row) return false;
  const { message } = toOutboxEntry(row);
  // A posted card (the thread's, or a copy in an approver's DM) is one of the request's cards from this
  // commit on: clicks on it decide the request, and every rewrite reaches it.
  if (message.type === 'approval-card' || message.type === 'approver-copy') {
    for (const part of delivery.progress.sent) {
      await tx.run(
        `INSERT INTO approval_cards (channel, ts, request_id, posted_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (channel, ts) DO NOTHING`,
        [part.channel, part.ts, message.requestId, tx.now],
      );
    }
  }
  return true;
}

export function createPgOutbox(context: PgContext): OutboxStore {
  const complete = (deliveries: readonly CompletedDelivery[]) =>
    transaction(context, async (tx) => {
      const results: boolean[] = [];
      for (const delivery of deliveries) results.push(await completeOne(tx, delivery));
      return results;
    });
  return {
    enqueue: (entries: readonly NewOutboxEntry[], deliverAs?: Lease) =>
      transaction(context, async (tx) => {
        const ids = await writeOutbox(tx, entries, deliverAs);
        if (ids.length === 0) return [];
        const rows = await tx.rows<OutboxRow>(
          'SELECT * FROM outbox WHERE id = ANY($1::bigint[]) ORDER BY id',
          [ids],
        );
        return rows.map(toOutboxEntry);
      }),
    async get(id) {
      const [row] = await read<OutboxRow>(context, 'SELECT * FROM outbox WHERE id = $1', [id]);
      return row ? toOutboxEntry(row) : undefined;
    },
    async nextPending(conversationId, afterId = 0) {
      const [row] = await read<OutboxRow>(
        context,
        `SELECT * FROM outbox WHERE conversation_id = $1 AND status = 'pending' AND id > $2 ORDER BY id LIMIT 1`,
        [conversationId, afterId],
      );
      return row ? toOutboxEntry(row) : undefined;
    },
    async duePending(limit) {
      const at = await currentTime(context);
      const rows = await read<OutboxRow>(
        context,
        `SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= $1
           AND (claim_owner IS NULL OR claim_expires_at < $1)
         ORDER BY next_attempt_at LIMIT $2`,
        [at, limit],
      );
      return rows.map(toOutboxEntry);
    },
    async heldPending(limit) {
      const at = await currentTime(context);
      const rows = await read<OutboxRow>(
        context,
        `SELECT * FROM outbox WHERE status = 'pending' AND claim_owner IS NOT NULL AND claim_expires_at >= $1
         ORDER BY id LIMIT $2`,
        [at, limit],
      );
      return rows.map(toOutboxEntry);
    },
    async claim(id, lease, options) {
      // SKIP LOCKED: a row another replica is claiming this instant is theirs; this one moves on at once.
      const { rows } = await autocommit<OutboxRow>(context, (now) => ({
        text: `UPDATE outbox SET claim_owner = $2, claim_token = claim_token + 1, claim_expires_at = ${now} + $3,
                 attempts = attempts + 1,
                 -- A claim that lapsed (or was taken from a dead owner) without an outcome may have posted.
                 in_doubt = CASE WHEN claim_owner IS NOT NULL THEN 1 ELSE in_doubt END
               WHERE id = (SELECT id FROM outbox WHERE id = $1 AND status = 'pending' AND next_attempt_at <= ${now}
                             AND (claim_owner IS NULL OR claim_expires_at < ${now} OR claim_owner = $4)
                           FOR UPDATE SKIP LOCKED)
               RETURNING *`,
        values: [id, lease.owner, lease.durationMs, options?.takeOverFrom ?? null],
      }));
      return rows[0] ? toOutboxEntry(rows[0]) : undefined;
    },
    async recordProgress(id, claim: ClaimToken, sent: DeliveryProgress, extendByMs) {
      const { changed } = await autocommit(context, (now) => ({
        text: `UPDATE outbox SET progress_json = $2, claim_expires_at = ${now} + $3
               WHERE id = $1 AND status = 'pending' AND claim_owner = $4 AND claim_token = $5`,
        values: [id, JSON.stringify(sent), extendByMs, claim.owner, claim.token],
      }));
      return changed === 1;
    },
    complete,
    // No group commit to ride along in here: the marker is its own (small) commit, so the contract
    // (recorded, or reconciled by the sweep after a crash) holds trivially.
    async completeSoon(delivery) {
      const [done] = await complete([delivery]);
      return done ?? false;
    },
    async retryLater(id, claim, next) {
      const { changed } = await autocommit(context, () => ({
        text: `UPDATE outbox SET claim_owner = NULL, claim_expires_at = NULL, in_doubt = $2, next_attempt_at = $3,
                 last_error = $4
               WHERE id = $1 AND status = 'pending' AND claim_owner = $5 AND claim_token = $6`,
        values: [id, next.inDoubt ? 1 : 0, next.nextAttemptAt, next.error, claim.owner, claim.token],
      }));
      return changed === 1;
    },
    giveUp: (id, claim, failure, deliverAs) =>
      transaction(context, async (tx) => {
        const current = await tx.one<OutboxRow>('SELECT * FROM outbox WHERE id = $1', [id]);
        if (!current) return false;
        const row = await tx.one<OutboxRow>(finishSql, [
          id,
          'failed',
          current.progress_json,
          failure.error,
          tx.now,
          claim.owner,
          claim.token,
        ]);
        if (!row) return false;
        insertAuditRow(tx, {
          actor: 'holdfast',
          kind: 'delivery.failed',
          approvalId: row.request_id,
          conversationId: row.conversation_id,
          data: { key: row.key, error: failure.error, turnId: row.turn_id },
        });
        await writeOutbox(tx, failure.notify ?? [], deliverAs);
        return true;
      }),
  };
}
