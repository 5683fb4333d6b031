import type { TurnRow } from '../row-mappers.js';
import { toTurn } from '../row-mappers.js';
import { decideClaim } from '../rules/claim-turn.js';
import type { ClaimOptions, ClaimResult, Lease } from '../store.js';
import type { Tx } from './pg-context.js';

export const activeStatuses = `('queued', 'running', 'awaiting_approval')`;

/** A turn's row with the facts the claim rule needs, as `claimRead` gives it. */
export type ClaimRow = TurnRow & { blocked: boolean; pending: number };

/** Reads a turn and the facts the rule needs in one statement; send it under the thread's lock. */
export function claimRead(turnId: string) {
  return {
    text: `SELECT t.*,
       t.status = 'queued' AND EXISTS (SELECT 1 FROM turns o WHERE o.conversation_id = t.conversation_id
         AND o.status IN ${activeStatuses} AND (o.seq < t.seq OR o.status <> 'queued') AND o.id <> t.id) AS blocked,
       CASE WHEN t.status = 'awaiting_approval'
         THEN (SELECT count(*) FROM approvals a WHERE a.turn_id = t.id AND a.resolved_at IS NULL)::int
         ELSE 0 END AS pending
     FROM turns t WHERE t.id = $1`,
    values: [turnId],
  };
}

/**
 * Takes a turn inside a caller's transaction: `enqueue` and `approvals.resolve` start or resume a turn in
 * the commit that made it runnable. Who may take it is the pure rule `decideClaim`; this gathers its facts
 * under the thread's lock and applies the answer with the state it read as the guard of the update.
 * `read` is the turn as `claimRead` gave it, when the caller sent that read with its own statements.
 */
export async function claimInside(
  tx: Tx,
  turnId: string,
  lease: Lease,
  options: ClaimOptions & { readonly locked?: boolean; readonly read?: ClaimRow } = {},
): Promise<ClaimResult> {
  if (!options.locked && !(await lockTurnConversationOf(tx, turnId))) {
    return { type: 'not-claimable', reason: 'unknown turn' };
  }
  const read = claimRead(turnId);
  const row = options.read ?? (await tx.one<ClaimRow>(read.text, read.values));
  if (!row) return { type: 'not-claimable', reason: 'unknown turn' };
  const at = tx.now;
  const turn = toTurn(row);
  const decision = decideClaim(turn, {
    now: at,
    blockedByEarlier: row.blocked,
    pendingApprovals: row.pending,
    takeOverFrom: options.takeOverFrom,
  });
  if (decision.type === 'refuse') return { type: 'not-claimable', reason: decision.reason, turn };
  // Guarded by what was read: a claim that raced past the lock (it cannot, but the schema and this guard
  // are what hold if it ever did) changes nothing.
  const updated = await tx.one<TurnRow>(
    `UPDATE turns SET status = 'running', lease_owner = $2, lease_expires_at = $3,
       lease_token = lease_token + 1, attempts = attempts + 1, ready_at = NULL, updated_at = $4
     WHERE id = $1 AND status = $5 AND lease_token = $6
     RETURNING *`,
    [turnId, lease.owner, at + lease.durationMs, at, row.status, row.lease_token],
  );
  if (!updated) return { type: 'not-claimable', reason: 'taken by another process', turn };
  if (decision.mode === 'start') {
    tx.later(
      `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, created_at)
       VALUES ($1, $1, $2, 'user', $3, $4)`,
      [row.conversation_id, turnId, row.input_text, at],
    );
  }
  const claimed = toTurn(updated);
  return {
    type: 'claimed',
    turn: claimed,
    mode: decision.mode,
    fence: { turnId, owner: lease.owner, token: claimed.leaseToken },
  };
}

/**
 * Marks an awaiting turn ready to resume once none of its requests is undecided; inside the commit that
 * decided (or expired) the last one, under the thread's lock.
 */
export function markReady(tx: Tx, turnId: string): void {
  tx.later(
    `UPDATE turns SET ready_at = $2 WHERE id = $1 AND status = 'awaiting_approval' AND ready_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = $1 AND a.resolved_at IS NULL)`,
    [turnId, tx.now],
  );
}

const lockOfTurnSql =
  'SELECT conversation_id, pg_advisory_xact_lock(hashtextextended(conversation_id, 0)) FROM turns WHERE id = $1';

/**
 * Takes the lock of the thread a turn belongs to (its conversation never changes), sent with the next
 * statement: the statements after it read snapshots taken once the lock is held.
 */
export function lockTurnConversation(tx: Tx, turnId: string): void {
  tx.later(lockOfTurnSql, [turnId]);
}

/** The same lock, now: the turn's conversation, or undefined for an unknown turn. */
export async function lockTurnConversationOf(tx: Tx, turnId: string): Promise<string | undefined> {
  return (await tx.one<{ conversation_id: string }>(lockOfTurnSql, [turnId]))?.conversation_id;
}
