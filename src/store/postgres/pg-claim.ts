import type { TurnRow } from '../row-mappers.js';
import { toTurn } from '../row-mappers.js';
import { planClaim } from '../rules/plan-turn.js';
import type { ClaimOptions, ClaimResult, Lease } from '../store.js';
import type { Tx } from './pg-context.js';
import { applyTurnWrites, lockTurnConversationOf } from './pg-turn-writes.js';

export const activeStatuses = `('queued', 'running', 'awaiting_approval')`;

/**
 * Takes a turn inside a caller's transaction: `approvals.resolve` resumes a turn in the commit that made
 * it runnable. Who may take it and what taking it writes is the pure `planClaim`; this reads its snapshot
 * under the thread's lock, in one statement, and applies its writes.
 */
export async function claimInside(
  tx: Tx,
  turnId: string,
  lease: Lease,
  options: ClaimOptions & { readonly locked?: boolean } = {},
): Promise<ClaimResult> {
  if (!options.locked && !(await lockTurnConversationOf(tx, turnId))) {
    return { type: 'not-claimable', reason: 'unknown turn' };
  }
  const row = await tx.one<TurnRow & { blocked: boolean; pending: number }>(
    `SELECT t.*,
       t.status = 'queued' AND EXISTS (SELECT 1 FROM turns o WHERE o.conversation_id = t.conversation_id
         AND o.status IN ${activeStatuses} AND (o.seq < t.seq OR o.status <> 'queued') AND o.id <> t.id) AS blocked,
       CASE WHEN t.status = 'awaiting_approval'
         THEN (SELECT count(*) FROM approvals a WHERE a.turn_id = t.id AND a.resolved_at IS NULL)::int
         ELSE 0 END AS pending
     FROM turns t WHERE t.id = $1`,
    [turnId],
  );
  if (!row) return { type: 'not-claimable', reason: 'unknown turn' };
  const turn = toTurn(row);
  const snapshot = { turn, blockedByEarlier: row.blocked, pendingApprovals: row.pending };
  const plan = planClaim(snapshot, lease, options, tx.now);
  if (plan.type === 'refuse') return { type: 'not-claimable', reason: plan.reason, turn };
  const applied = await applyTurnWrites(tx, plan.writes);
  if (applied.type !== 'applied' || !applied.turn)
    return { type: 'not-claimable', reason: 'taken by another process', turn };
  const claimed = applied.turn;
  return {
    type: 'claimed',
    turn: claimed,
    mode: plan.mode,
    fence: { turnId, owner: lease.owner, token: claimed.leaseToken },
  };
}
