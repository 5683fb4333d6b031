import { z } from 'zod';
import type { TurnRow } from '../row-mappers.js';
import { toolCallsSchema, toTurn } from '../row-mappers.js';
import { decideClaim } from '../rules/claim-turn.js';
import { nextCallToRun } from '../rules/next-call.js';
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
  // are what hold if it ever did) changes nothing. A resume reads the turn's last calls in the same message,
  // after the update: by then no write of the previous holder is still in flight (see `markFirstApprovedCall`).
  const [claimedAnswer, lastCallsAnswer] = await tx.each([
    {
      text: `UPDATE turns SET status = 'running', lease_owner = $2, lease_expires_at = $3,
               lease_token = lease_token + 1, attempts = attempts + 1, ready_at = NULL, updated_at = $4
             WHERE id = $1 AND status = $5 AND lease_token = $6
             RETURNING *`,
      values: [turnId, lease.owner, at + lease.durationMs, at, row.status, row.lease_token],
    },
    ...(decision.mode === 'resume' ? [lastCallsRead(row.conversation_id)] : []),
  ]);
  const updated = claimedAnswer?.rows[0] as TurnRow | undefined;
  if (!updated) return { type: 'not-claimable', reason: 'taken by another process', turn };
  if (decision.mode === 'start') {
    tx.later(
      `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, created_at)
       VALUES ($1, $1, $2, 'user', $3, $4)`,
      [row.conversation_id, turnId, row.input_text, at],
    );
  }
  const claimed = toTurn(updated);
  const startedCall =
    decision.mode === 'resume'
      ? markFirstApprovedCall(tx, turnId, row.conversation_id, claimed.leaseToken, lastCallsAnswer?.rows[0])
      : undefined;
  return {
    type: 'claimed',
    turn: claimed,
    mode: decision.mode,
    fence: { turnId, owner: lease.owner, token: claimed.leaseToken },
    ...(startedCall ? { startedCall } : {}),
  };
}

const lastCallsSchema = z.object({
  tool_calls_json: z.string(),
  results: z.array(z.string()),
  allowed: z.array(z.object({ id: z.string(), toolName: z.string(), argsHash: z.string() })),
  started: z.array(z.string()),
});

/**
 * The last batch of calls in a transcript, the results already written after it, which of its calls were
 * allowed and which already have a ledger entry, in one read.
 */
function lastCallsRead(conversationId: string) {
  return {
    text: `SELECT m.tool_calls_json,
       coalesce((SELECT json_agg(r.tool_call_id) FROM messages r WHERE r.transcript_id = $1 AND r.role = 'tool'
                 AND r.seq > m.seq), '[]'::json) AS results,
       coalesce((SELECT json_agg(json_build_object('id', a.tool_call_id, 'toolName', a.tool_name,
                   'argsHash', a.args_hash))
                 FROM approvals a WHERE a.transcript_id = $1 AND a.decision = 'allowed'
                   AND a.tool_call_id IN (SELECT c ->> 'id' FROM json_array_elements(m.tool_calls_json::json) c)),
                '[]'::json) AS allowed,
       coalesce((SELECT json_agg(e.tool_call_id) FROM tool_executions e WHERE e.transcript_id = $1
                   AND e.tool_call_id IN (SELECT c ->> 'id' FROM json_array_elements(m.tool_calls_json::json) c)),
                '[]'::json) AS started
     FROM messages m WHERE m.transcript_id = $1 AND m.role = 'assistant' AND m.tool_calls_json IS NOT NULL
     ORDER BY m.seq DESC LIMIT 1`,
    values: [conversationId],
  };
}

/**
 * The claim that resumes a turn marks, in its own commit, the approved call the turn runs first (the
 * at-most-once ledger): a crash right after reports that call's outcome as unknown, never runs it twice.
 * Which call runs next is the rule's choice, from a read made after the claim's update: that update
 * waited for any transaction of the previous holder that had passed its fence, and every later one fails
 * its fence, so a call with no ledger entry in the read gets none from anyone else before this commits,
 * and its entry can travel with the commit. A call already in the ledger is left to report itself.
 */
function markFirstApprovedCall(
  tx: Tx,
  turnId: string,
  conversationId: string,
  token: number,
  read: unknown,
): { transcriptId: string; toolCallId: string } | undefined {
  if (read === undefined) return undefined;
  const last = lastCallsSchema.parse(read);
  const calls = toolCallsSchema.parse(JSON.parse(last.tool_calls_json));
  const next = nextCallToRun(calls, new Set(last.results));
  if (!next || last.started.includes(next.id)) return undefined;
  const approval = last.allowed.find((call) => call.id === next.id);
  if (!approval) return undefined;
  tx.later(
    `INSERT INTO tool_executions (transcript_id, tool_call_id, conversation_id, turn_id, tool_name, args_hash,
       status, started_at, lease_token)
     VALUES ($1, $2, $1, $3, $4, $5, 'started', $6, $7)`,
    [conversationId, next.id, turnId, approval.toolName, approval.argsHash, tx.now, token],
  );
  return { transcriptId: conversationId, toolCallId: next.id };
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
