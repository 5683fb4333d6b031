import { type TurnRow, toTurn } from '../row-mappers.js';
import { decideClaim } from '../rules/claim-turn.js';
import type { ClaimOptions, ClaimResult, Lease } from '../store.js';
import type { SqliteContext } from './sqlite-context.js';

// turns_open's condition word for word (migrations.ts): a query that repeats it can use that partial index.
export const activeStatuses = `('queued', 'running', 'awaiting_approval')`;

/**
 * Marks an awaiting turn ready to resume once none of its requests is undecided; inside the commit that
 * decided (or expired) the last one.
 */
export function prepareReadyMark({ db }: SqliteContext): (turnId: string, at: number) => void {
  const mark = db.prepare(
    `UPDATE turns SET ready_at = @at WHERE id = @turnId AND status = 'awaiting_approval' AND ready_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = @turnId AND a.resolved_at IS NULL)`,
  );
  return (turnId, at) => {
    mark.run({ turnId, at });
  };
}

/**
 * The claim itself, to run inside a caller's write transaction: `enqueue` and `approvals.resolve` use it
 * to start or resume a turn in the same commit that made it runnable. Who may take the turn is the pure
 * rule in `decideClaim`; this only gathers its facts and applies its answer.
 */
export function prepareTurnClaim({ db, now }: SqliteContext) {
  const byId = db.prepare<[string], TurnRow>('SELECT * FROM turns WHERE id = ?');
  const earlierActive = db.prepare<[string, number, string], { n: number }>(
    `SELECT EXISTS (SELECT 1 FROM turns
     WHERE conversation_id = ? AND status IN ${activeStatuses} AND (seq < ? OR status <> 'queued') AND id <> ?) AS n`,
  );
  const pendingApprovals = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM approvals WHERE turn_id = ? AND resolved_at IS NULL',
  );
  const setRunning = db.prepare<[{ id: string; owner: string; expires: number; now: number }], TurnRow>(
    `UPDATE turns SET status = 'running', lease_owner = @owner, lease_expires_at = @expires,
       lease_token = lease_token + 1, attempts = attempts + 1, ready_at = NULL, updated_at = @now WHERE id = @id
     RETURNING *`,
  );
  const appendUserMessage = db.prepare(
    `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, created_at)
     VALUES (@conversationId, @conversationId, @turnId, 'user', @content, @now)`,
  );
  return (turnId: string, lease: Lease, options: ClaimOptions = {}): ClaimResult => {
    const row = byId.get(turnId);
    if (!row) return { type: 'not-claimable', reason: 'unknown turn' };
    const at = now();
    const turn = toTurn(row);
    const decision = decideClaim(turn, {
      now: at,
      blockedByEarlier:
        row.status === 'queued' && (earlierActive.get(row.conversation_id, row.seq, row.id)?.n ?? 0) > 0,
      pendingApprovals: row.status === 'awaiting_approval' ? (pendingApprovals.get(turnId)?.n ?? 0) : 0,
      takeOverFrom: options.takeOverFrom,
    });
    if (decision.type === 'refuse') return { type: 'not-claimable', reason: decision.reason, turn };
    const running = setRunning.get({
      id: turnId,
      owner: lease.owner,
      expires: at + lease.durationMs,
      now: at,
    });
    if (decision.mode === 'start') {
      appendUserMessage.run({
        conversationId: row.conversation_id,
        turnId,
        content: row.input_text,
        now: at,
      });
    }
    const claimed = toTurn(running as TurnRow);
    return {
      type: 'claimed',
      turn: claimed,
      mode: decision.mode,
      fence: { turnId, owner: lease.owner, token: claimed.leaseToken },
    };
  };
}
