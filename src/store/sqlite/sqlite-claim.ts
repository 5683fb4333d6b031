import { type TurnRow, toTurn } from '../row-mappers.js';
import { planClaim } from '../rules/plan-turn.js';
import type { ClaimOptions, ClaimResult, Lease } from '../store.js';
import type { SqliteContext } from './sqlite-context.js';
import { prepareTurnWrites } from './sqlite-turn-writes.js';

// turns_open's condition word for word (migrations.ts): a query that repeats it can use that partial index.
export const activeStatuses = `('queued', 'running', 'awaiting_approval')`;

/**
 * The claim itself, to run inside a caller's write transaction: `approvals.resolve` uses it to resume a
 * turn in the same commit that made it runnable. Who may take the turn and what taking it writes is the
 * pure `planClaim`; this only reads its snapshot and applies its writes.
 */
export function prepareTurnClaim(
  context: SqliteContext,
  apply: ReturnType<typeof prepareTurnWrites> = prepareTurnWrites(context),
) {
  const { db, now } = context;
  const byId = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE id = ?');
  const earlierActive = db.prepare<[string, number, string], { n: number }>(
    `SELECT EXISTS (SELECT 1 FROM turns
     WHERE conversation_id = ? AND status IN ${activeStatuses} AND (seq < ? OR status <> 'queued') AND id <> ?) AS n`,
  );
  const pendingApprovals = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM approvals WHERE turn_id = ? AND resolved_at IS NULL',
  );
  return (turnId: string, lease: Lease, options: ClaimOptions = {}): ClaimResult => {
    const row = byId.get(turnId);
    if (!row) return { type: 'not-claimable', reason: 'unknown turn' };
    const at = now();
    const turn = toTurn(row);
    const snapshot = {
      turn,
      blockedByEarlier:
        row.status === 'queued' && (earlierActive.get(row.conversation_id, row.seq, row.id)?.n ?? 0) > 0,
      pendingApprovals: row.status === 'awaiting_approval' ? (pendingApprovals.get(turnId)?.n ?? 0) : 0,
    };
    const plan = planClaim(snapshot, lease, options, at);
    if (plan.type === 'refuse') return { type: 'not-claimable', reason: plan.reason, turn };
    const applied = apply(plan.writes, at);
    if (applied.type !== 'applied' || !applied.turn)
      return { type: 'not-claimable', reason: 'taken by another process', turn };
    const claimed = applied.turn;
    return {
      type: 'claimed',
      turn: claimed,
      mode: plan.mode,
      fence: { turnId, owner: lease.owner, token: claimed.leaseToken },
    };
  };
}
