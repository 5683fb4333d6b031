import type { TurnRow } from '../row-mappers.js';
import { toolCallsSchema, toTurn } from '../row-mappers.js';
import { decideClaim } from '../rules/claim-turn.js';
import { nextCallToRun } from '../rules/next-call.js';
import type { ClaimOptions, ClaimResult, Lease } from '../store.js';
import type { Tx } from './pg-context.js';

export const activeStatuses = `('queued', 'running', 'awaiting_approval')`;

/**
 * Takes a turn inside a caller's transaction: `enqueue` and `approvals.resolve` start or resume a turn in
 * the commit that made it runnable. Who may take it is the pure rule `decideClaim`; this gathers its facts
 * under the thread's lock and applies the answer with the state it read as the guard of the update.
 */
export async function claimInside(
  tx: Tx,
  turnId: string,
  lease: Lease,
  options: ClaimOptions & { readonly locked?: boolean } = {},
): Promise<ClaimResult> {
  if (!options.locked) {
    const head = await tx.one<{ conversation_id: string }>(
      'SELECT conversation_id FROM turns WHERE id = $1',
      [turnId],
    );
    if (!head) return { type: 'not-claimable', reason: 'unknown turn' };
    await tx.lockConversation(head.conversation_id);
  }
  const row = await tx.one<TurnRow>('SELECT * FROM turns WHERE id = $1', [turnId]);
  if (!row) return { type: 'not-claimable', reason: 'unknown turn' };
  const at = tx.now;
  const turn = toTurn(row);
  const facts = await tx.one<{ blocked: boolean; pending: number }>(
    `SELECT
       $2::text = 'queued' AND EXISTS (SELECT 1 FROM turns WHERE conversation_id = $1 AND status IN ${activeStatuses}
         AND (seq < $3 OR status <> 'queued') AND id <> $4) AS blocked,
       CASE WHEN $2::text = 'awaiting_approval'
         THEN (SELECT count(*) FROM approvals WHERE turn_id = $4 AND resolved_at IS NULL)::int ELSE 0 END AS pending`,
    [row.conversation_id, row.status, row.seq, turnId],
  );
  const decision = decideClaim(turn, {
    now: at,
    blockedByEarlier: facts?.blocked ?? true,
    pendingApprovals: facts?.pending ?? 0,
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
    await tx.run(
      `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, created_at)
       VALUES ($1, $1, $2, 'user', $3, $4)`,
      [row.conversation_id, turnId, row.input_text, at],
    );
  }
  const claimed = toTurn(updated);
  const startedCall =
    decision.mode === 'resume'
      ? await markFirstApprovedCall(tx, turnId, row.conversation_id, claimed.leaseToken)
      : undefined;
  return {
    type: 'claimed',
    turn: claimed,
    mode: decision.mode,
    fence: { turnId, owner: lease.owner, token: claimed.leaseToken },
    ...(startedCall ? { startedCall } : {}),
  };
}

/**
 * The claim that resumes a turn marks, in its own commit, the approved call the turn runs first (the
 * at-most-once ledger): a crash right after reports that call's outcome as unknown, never runs it twice.
 */
async function markFirstApprovedCall(tx: Tx, turnId: string, conversationId: string, token: number) {
  const last = await tx.one<{ seq: number; tool_calls_json: string }>(
    `SELECT seq, tool_calls_json FROM messages WHERE transcript_id = $1 AND role = 'assistant'
       AND tool_calls_json IS NOT NULL ORDER BY seq DESC LIMIT 1`,
    [conversationId],
  );
  if (!last) return undefined;
  const calls = toolCallsSchema.parse(JSON.parse(last.tool_calls_json));
  const results = await tx.rows<{ tool_call_id: string }>(
    `SELECT tool_call_id FROM messages WHERE transcript_id = $1 AND role = 'tool' AND seq > $2`,
    [conversationId, last.seq],
  );
  const next = nextCallToRun(calls, new Set(results.map((result) => result.tool_call_id)));
  if (!next) return undefined;
  const approval = await tx.one<{ tool_name: string; args_hash: string }>(
    `SELECT tool_name, args_hash FROM approvals WHERE transcript_id = $1 AND tool_call_id = $2
       AND decision = 'allowed'`,
    [conversationId, next.id],
  );
  if (!approval) return undefined;
  const marked = await tx.run(
    `INSERT INTO tool_executions (transcript_id, tool_call_id, conversation_id, turn_id, tool_name, args_hash,
       status, started_at, lease_token)
     VALUES ($1, $2, $1, $3, $4, $5, 'started', $6, $7)
     ON CONFLICT (transcript_id, tool_call_id) DO NOTHING`,
    [conversationId, next.id, turnId, approval.tool_name, approval.args_hash, tx.now, token],
  );
  return marked === 1 ? { transcriptId: conversationId, toolCallId: next.id } : undefined;
}

/**
 * Marks an awaiting turn ready to resume once none of its requests is undecided; inside the commit that
 * decided (or expired) the last one, under the thread's lock.
 */
export async function markReady(tx: Tx, turnId: string): Promise<void> {
  await tx.run(
    `UPDATE turns SET ready_at = $2 WHERE id = $1 AND status = 'awaiting_approval' AND ready_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.turn_id = $1 AND a.resolved_at IS NULL)`,
    [turnId, tx.now],
  );
}

/** Takes the lock of the thread a turn belongs to (its conversation never changes). */
export async function lockTurnConversation(tx: Tx, turnId: string): Promise<void> {
  await tx.run(
    'SELECT pg_advisory_xact_lock(hashtextextended(conversation_id, 0)) FROM turns WHERE id = $1',
    [turnId],
  );
}
