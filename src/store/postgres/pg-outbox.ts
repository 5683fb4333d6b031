import type { DeliveryProgress, NewOutboxEntry } from '../outbox-message.js';
import { type OutboxRow, toOutboxEntry } from '../row-mappers.js';
import type { ClaimToken, CompletedDelivery, OutboxStore } from '../store.js';
import { insertAuditRow } from './pg-audit-chain.js';
import { autocommit, momentSql, type PgContext, read, transaction } from './pg-context.js';
import { writeOutbox, writeOutboxReturning } from './pg-outbox-writer.js';

const finishSql = `UPDATE outbox SET status = $2, progress_json = $3, claim_owner = NULL, claim_expires_at = NULL,
    in_doubt = 0, last_error = $4, finished_at = $5
  WHERE id = $1 AND status = 'pending' AND claim_owner = $6 AND claim_token = $7
  RETURNING *`;

/**
 * A delivered row, recorded in one statement: the row turns sent if the claim is still ours, and a posted
 * card (the thread's, or a copy in an approver's DM) becomes one of the request's cards in the same commit
 * (clicks on it decide the request from then on, and every rewrite reaches it). Answers one row with \`done\` = 1, or 0 when the claim is no longer ours.
 */
function completeStatement(now: string, delivery: CompletedDelivery) {
  return {
    text: `WITH done AS (
             UPDATE outbox SET status = 'sent', progress_json = $2, claim_owner = NULL, claim_expires_at = NULL,
               in_doubt = 0, last_error = NULL, finished_at = ${now}
             WHERE id = $1 AND status = 'pending' AND claim_owner = $3 AND claim_token = $4
             RETURNING message_json),
           cards AS (
             INSERT INTO approval_cards (channel, ts, request_id, posted_at)
             SELECT part.channel, part.ts, ids.request_id, ${now}
             FROM done, json_to_recordset($5::json) AS part(channel text, ts text),
               LATERAL (
                 SELECT done.message_json::json ->> 'requestId' AS request_id
                 WHERE done.message_json::json ->> 'type' IN ('approval-card', 'approver-copy')
                 UNION ALL
                 -- A plan's card is a card of every request it lists.
                 SELECT plan.value FROM json_array_elements_text(done.message_json::json -> 'requestIds') AS plan(value)
                 WHERE done.message_json::json ->> 'type' = 'approval-plan'
               ) AS ids
             ON CONFLICT (channel, ts, request_id) DO NOTHING)
           SELECT count(*)::int AS done FROM done`,
    values: [
      delivery.id,
      JSON.stringify(delivery.progress),
      delivery.claim.owner,
      delivery.claim.token,
      JSON.stringify(delivery.progress.sent),
    ],
  };
}

const completed = (answer: { rows: Array<{ done?: unknown }> }) => answer.rows[0]?.done === 1;

export function createPgOutbox(context: PgContext): OutboxStore {
  const complete = (deliveries: readonly CompletedDelivery[]) =>
    transaction(context, async (tx) => {
      const results: boolean[] = [];
      for (const delivery of deliveries) {
        const { text, values } = completeStatement(tx.nowSql, delivery);
        results.push(completed({ rows: await tx.rows<{ done: number }>(text, values) }));
      }
      return results;
    });
  return {
    enqueue: (entries: readonly NewOutboxEntry[]) =>
      transaction(context, async (tx) => {
        await tx.start();
        const rows = await writeOutboxReturning(tx, entries);
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
      const now = momentSql(context);
      const rows = await read<OutboxRow>(
        context,
        `SELECT * FROM outbox WHERE status = 'pending' AND next_attempt_at <= ${now}
           AND (claim_owner IS NULL OR claim_expires_at < ${now})
         ORDER BY next_attempt_at LIMIT $1`,
        [limit],
      );
      return rows.map(toOutboxEntry);
    },
    async heldPending(limit) {
      const rows = await read<OutboxRow>(
        context,
        `SELECT * FROM outbox WHERE status = 'pending' AND claim_owner IS NOT NULL
           AND claim_expires_at >= ${momentSql(context)}
         ORDER BY id LIMIT $1`,
        [limit],
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
    async retryLater(id, claim, next) {
      const { changed } = await autocommit(context, () => ({
        text: `UPDATE outbox SET claim_owner = NULL, claim_expires_at = NULL, in_doubt = $2, next_attempt_at = $3,
                 last_error = $4, attempts = attempts - $7
               WHERE id = $1 AND status = 'pending' AND claim_owner = $5 AND claim_token = $6`,
        values: [
          id,
          next.inDoubt ? 1 : 0,
          next.nextAttemptAt,
          next.error,
          claim.owner,
          claim.token,
          next.waited ? 1 : 0,
        ],
      }));
      return changed === 1;
    },
    giveUp: (id, claim, failure) =>
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
        writeOutbox(tx, failure.notify ?? []);
        return true;
      }),
  };
}
