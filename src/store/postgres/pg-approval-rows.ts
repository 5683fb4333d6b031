import type { Approval } from '../records.js';
import { type ApprovalRow, approvalCardsSchema, approvalVotesSchema, toApproval } from '../row-mappers.js';
import { approvalDetailsJson } from '../rows/approval-details.js';
import type { CreateApprovalResult, NewApproval } from '../store.js';
import { insertAuditRow } from './pg-audit-chain.js';
import type { Tx } from './pg-context.js';

/** An approval's votes and cards, as columns of a statement that names its row `alias`. */
export const approvalParts = (alias: string) => `
    coalesce((SELECT json_agg(v.user_id ORDER BY v.at, v.seq) FROM approval_votes v
              WHERE v.request_id = ${alias}.request_id), '[]'::json) AS votes,
    coalesce((SELECT json_agg(json_build_object('channel', c.channel, 'ts', c.ts) ORDER BY c.posted_at, c.seq)
              FROM approval_cards c WHERE c.request_id = ${alias}.request_id), '[]'::json) AS cards`;

/** An approval row with its votes and cards, read in one statement. */
export const approvalSelect = `SELECT a.*, ${approvalParts('a')} FROM approvals a`;

export interface ApprovalRowWithParts extends ApprovalRow {
  votes: unknown;
  cards: unknown;
}

export function toPgApproval(row: ApprovalRowWithParts): Approval {
  return toApproval(row, approvalVotesSchema.parse(row.votes), approvalCardsSchema.parse(row.cards));
}

export async function approvalInside(tx: Tx, requestId: string): Promise<Approval> {
  const row = await tx.one<ApprovalRowWithParts>(`${approvalSelect} WHERE a.request_id = $1`, [requestId]);
  if (!row) throw new Error(`approval ${requestId} vanished inside its own transaction`);
  return toPgApproval(row);
}

/**
 * Creates a pending row inside a turn's suspension, the only way a request is made. An existing row for the same call is returned untouched.
 */
export async function createApprovalInside(tx: Tx, approval: NewApproval): Promise<CreateApprovalResult> {
  // A new request has no votes or cards yet: the row comes back whole from the insert.
  const inserted = await tx.one<ApprovalRowWithParts>(
    `INSERT INTO approvals (request_id, conversation_id, transcript_id, tool_call_id, turn_id, tool_name,
       permission_type, summary, details_json, args_hash, reason, requested_by, required_approvals, created_at,
       expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (transcript_id, tool_call_id) DO NOTHING
     RETURNING *, '[]'::json AS votes, '[]'::json AS cards`,
    [
      approval.requestId,
      approval.conversationId,
      approval.transcriptId,
      approval.toolCallId,
      approval.turnId,
      approval.toolName,
      approval.permissionType,
      approval.summary,
      approvalDetailsJson(approval),
      approval.argsHash,
      approval.reason,
      approval.requestedBy,
      approval.requiredApprovals,
      tx.now,
      approval.expiresAt,
    ],
  );
  if (!inserted) {
    const existing = await tx.one<ApprovalRowWithParts>(
      `${approvalSelect} WHERE a.transcript_id = $1 AND a.tool_call_id = $2`,
      [approval.transcriptId, approval.toolCallId],
    );
    if (!existing) throw new Error('approval conflict without a row');
    return { type: 'exists', approval: toPgApproval(existing) };
  }
  insertAuditRow(tx, {
    actor: approval.requestedBy,
    kind: 'approval.requested',
    approvalId: approval.requestId,
    conversationId: approval.conversationId,
    data: { tool: approval.toolName, summary: approval.summary },
  });
  return { type: 'created', approval: toPgApproval(inserted) };
}
