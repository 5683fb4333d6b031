import type { Approval } from '../records.js';
import {
  type ApprovalRow,
  approvalCardsSchema,
  toApproval as approvalOf,
  approvalVotesSchema,
} from '../row-mappers.js';
import { approvalDetailsJson } from '../rows/approval-details.js';
import { parseJsonColumn } from '../rows/parse-json-column.js';
import type { CreateApprovalResult, NewApproval } from '../store.js';
import { prepareAuditInsert } from './sqlite-audit.js';
import type { SqliteContext } from './sqlite-context.js';

/** Reading approval rows as records: the row, its votes and its cards. */
export function prepareApprovalRows({ db }: SqliteContext) {
  const byId = db.prepare<[string], ApprovalRow>('SELECT * FROM approvals WHERE request_id = ?');
  const byCall = db.prepare<[string, string], ApprovalRow>(
    'SELECT * FROM approvals WHERE transcript_id = ? AND tool_call_id = ?',
  );
  const votesFor = db.prepare<[string], { user_id: string }>(
    'SELECT user_id FROM approval_votes WHERE request_id = ? ORDER BY at, rowid',
  );
  // One statement for both, as the PostgreSQL store reads them: a request is read several times a cycle.
  const partsOf = db.prepare<[{ id: string }], { votes: string; cards: string }>(
    `SELECT
       (SELECT json_group_array(user_id ORDER BY at, rowid) FROM approval_votes WHERE request_id = @id) AS votes,
       (SELECT json_group_array(json_object('channel', channel, 'ts', ts) ORDER BY posted_at, rowid)
          FROM approval_cards WHERE request_id = @id) AS cards`,
  );
  const toApproval = (row: ApprovalRow): Approval => {
    const parts = partsOf.get({ id: row.request_id }) as { votes: string; cards: string };
    const key = row.request_id;
    return approvalOf(
      row,
      parseJsonColumn(approvalVotesSchema, parts.votes, { table: 'approval_votes', key }),
      parseJsonColumn(approvalCardsSchema, parts.cards, { table: 'approval_cards', key }),
    );
  };
  return { byId, byCall, votesFor, toApproval };
}

/**
 * Creates a pending row inside a turn's suspension, which writes every pending row of an assistant
 * message with it: the only way a request is made. An existing row for the same call is returned untouched.
 */
export function prepareApprovalCreate(context: SqliteContext) {
  const { db } = context;
  const { byCall, toApproval } = prepareApprovalRows(context);
  const insert = db.prepare(
    `INSERT INTO approvals (request_id, conversation_id, transcript_id, tool_call_id, turn_id, tool_name,
       permission_type, summary, details_json, args_hash, reason, requested_by, required_approvals, created_at,
       expires_at)
     VALUES (@requestId, @conversationId, @transcriptId, @toolCallId, @turnId, @toolName, @permissionType,
       @summary, @details, @argsHash, @reason, @requestedBy, @requiredApprovals, @now, @expiresAt)
     ON CONFLICT (transcript_id, tool_call_id) DO NOTHING`,
  );
  const audit = prepareAuditInsert(context);
  return (approval: NewApproval, at: number): CreateApprovalResult => {
    const details = approvalDetailsJson(approval);
    const result = insert.run({ ...approval, details, now: at });
    if (result.changes === 0) {
      const existing = byCall.get(approval.transcriptId, approval.toolCallId);
      if (!existing) throw new Error('approval conflict without a row');
      return { type: 'exists', approval: toApproval(existing) };
    }
    audit(
      {
        actor: approval.requestedBy,
        kind: 'approval.requested',
        approvalId: approval.requestId,
        conversationId: approval.conversationId,
        data: { tool: approval.toolName, summary: approval.summary },
      },
      at,
    );
    // Mapped from the row as inserted, not read back: a request is created on every suspension, and a
    // new one has no votes or cards yet.
    return { type: 'created', approval: approvalOf(insertedRow(approval, details, at), [], []) };
  };
}

function insertedRow(approval: NewApproval, detailsJson: string, at: number): ApprovalRow {
  return {
    request_id: approval.requestId,
    conversation_id: approval.conversationId,
    transcript_id: approval.transcriptId,
    tool_call_id: approval.toolCallId,
    turn_id: approval.turnId,
    tool_name: approval.toolName,
    permission_type: approval.permissionType,
    summary: approval.summary,
    details_json: detailsJson,
    args_hash: approval.argsHash,
    reason: approval.reason,
    requested_by: approval.requestedBy,
    required_approvals: approval.requiredApprovals,
    created_at: at,
    expires_at: approval.expiresAt,
    resolved_at: null,
    decision: null,
    decided_by: null,
    always_allow: 0,
    decision_reason: null,
  };
}

/** Records a message that carries a request's buttons, inside a caller's transaction (once per message). */
export function prepareCardInsert({ db }: SqliteContext) {
  const insert = db.prepare(
    `INSERT INTO approval_cards (channel, ts, request_id, posted_at) VALUES (@channel, @ts, @requestId, @now)
     ON CONFLICT (channel, ts, request_id) DO NOTHING`,
  );
  return (card: { channel: string; ts: string; requestId: string }, at: number): void => {
    insert.run({ ...card, now: at });
  };
}
