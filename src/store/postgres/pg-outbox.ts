import type { NewOutboxEntry } from '../outbox-message.js';
import { type OutboxRow, toOutboxEntry } from '../row-mappers.js';
import {
  type OutboxPlan,
  type OutboxSnapshot,
  type OutboxWrites,
  planClaim,
  planComplete,
  planGiveUp,
  planProgress,
  planRetry,
} from '../rules/plan-outbox.js';
import type { OutboxStore } from '../store.js';
import { insertAuditRow } from './pg-audit-chain.js';
import { momentSql, type PgContext, read, type Tx, transaction } from './pg-context.js';
import { insertOutboxRows, writeOutboxReturning } from './pg-outbox-writer.js';

const updateSql = `UPDATE outbox SET status = $4, claim_owner = $5, claim_token = $6, claim_expires_at = $7,
    attempts = $8, in_doubt = $9, next_attempt_at = $10, progress_json = $11, last_error = $12, finished_at = $13
  WHERE id = $1 AND status = 'pending' AND claim_owner IS NOT DISTINCT FROM $2 AND claim_token = $3`;

const cardSql = `INSERT INTO approval_cards (channel, ts, request_id, posted_at) VALUES ($1, $2, $3, $4)
  ON CONFLICT (channel, ts, request_id) DO NOTHING`;

/** Applies an outbox plan's writes; false when the row's fence no longer holds (nothing is written then). */
async function apply(tx: Tx, writes: OutboxWrites, at: number): Promise<boolean> {
  if (writes.update) {
    const { id, fence, set } = writes.update;
    const changed = await tx.run(updateSql, [
      id,
      fence.owner,
      fence.token,
      set.status,
      set.claim?.owner ?? null,
      set.claimToken,
      set.claim?.expiresAt ?? null,
      set.attempts,
      set.inDoubt ? 1 : 0,
      set.nextAttemptAt,
      JSON.stringify(set.progress),
      set.lastError,
      set.finishedAt,
    ]);
    if (changed === 0) return false;
  }
  for (const card of writes.cards) tx.later(cardSql, [card.channel, card.ts, card.requestId, at]);
  for (const event of writes.audit) insertAuditRow(tx, event);
  insertOutboxRows(tx, writes.insert);
  return true;
}

/**
 * Reads the row, plans the transition and applies it, in one transaction. The row is locked as it is
 * read; a claim skips a row another replica is claiming this instant (it is theirs) and moves on at once.
 */
async function transition(
  tx: Tx,
  id: number,
  plan: (snapshot: OutboxSnapshot, at: number) => OutboxPlan,
  lock = 'FOR UPDATE',
) {
  const row = await tx.one<OutboxRow>(`SELECT * FROM outbox WHERE id = $1 ${lock}`, [id]);
  if (!row) return undefined;
  const planned = plan({ row: toOutboxEntry(row), claimToken: row.claim_token }, tx.now);
  return planned.type === 'planned' && (await apply(tx, planned.writes, tx.now)) ? planned.row : undefined;
}

export function createPgOutbox(context: PgContext): OutboxStore {
  const run = (id: number, plan: (snapshot: OutboxSnapshot, at: number) => OutboxPlan, lock?: string) =>
    transaction(context, (tx) => transition(tx, id, plan, lock));
  return {
    enqueue: (entries: readonly NewOutboxEntry[]) =>
      transaction(context, async (tx) => {
        await tx.start();
        const rows = await writeOutboxReturning(tx, entries);
        return rows.map(toOutboxEntry);
      }),
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
    claim: (id, lease, options) =>
      run(
        id,
        (snapshot, at) => planClaim(snapshot, lease, options?.takeOverFrom, at),
        'FOR UPDATE SKIP LOCKED',
      ),
    recordProgress: async (id, claim, progress, extendByMs) =>
      (await run(id, (snapshot, at) => planProgress(snapshot, claim, progress, extendByMs, at))) !==
      undefined,
    complete: (deliveries) =>
      transaction(context, async (tx) => {
        const results: boolean[] = [];
        for (const delivery of deliveries) {
          const done = await transition(tx, delivery.id, (snapshot, at) =>
            planComplete(snapshot, delivery, at),
          );
          results.push(done !== undefined);
        }
        return results;
      }),
    retryLater: async (id, claim, retry) =>
      (await run(id, (snapshot) => planRetry(snapshot, claim, retry))) !== undefined,
    giveUp: async (id, claim, failure) =>
      (await run(id, (snapshot, at) => planGiveUp(snapshot, claim, failure, at))) !== undefined,
  };
}
