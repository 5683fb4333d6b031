import { z } from 'zod';
import type { Approval, ApprovalCard, ApprovalDecision } from '../records.js';
import { approvalDetailsOf } from './approval-details.js';

/** An approval's votes and cards as both stores read them: JSON arrays aggregated in the row's query. */
export const approvalVotesSchema = z.array(z.string());
export const approvalCardsSchema = z.array(z.object({ channel: z.string(), ts: z.string() }));

export interface ApprovalRow {
  request_id: string;
  conversation_id: string;
  transcript_id: string;
  tool_call_id: string;
  turn_id: string;
  tool_name: string;
  permission_type: string;
  summary: string;
  details_json: string;
  args_hash: string;
  reason: string | null;
  requested_by: string;
  required_approvals: number;
  created_at: number;
  expires_at: number;
  resolved_at: number | null;
  decision: ApprovalDecision | null;
  decided_by: string | null;
  always_allow: number;
  /** Schema 6: what the person who decided said. */
  decision_reason: string | null;
}

export function toApproval(row: ApprovalRow, approvedBy: readonly string[], cards: readonly ApprovalCard[]) {
  const approval: Approval = {
    ...approvalDetailsOf(row),
    requestId: row.request_id,
    conversationId: row.conversation_id,
    transcriptId: row.transcript_id,
    toolCallId: row.tool_call_id,
    turnId: row.turn_id,
    toolName: row.tool_name,
    permissionType: row.permission_type,
    summary: row.summary,
    argsHash: row.args_hash,
    reason: row.reason,
    requestedBy: row.requested_by,
    requiredApprovals: row.required_approvals,
    approvedBy,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    resolvedAt: row.resolved_at,
    decision: row.decision,
    decidedBy: row.decided_by,
    decisionReason: row.decision_reason,
    always: row.always_allow === 1,
    cards,
  };
  return approval;
}
