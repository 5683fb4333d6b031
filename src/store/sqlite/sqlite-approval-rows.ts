import type { Approval } from '../records.js';
import {
  type ApprovalRow,
  approvalCardsSchema,
  toApproval as approvalOf,
  approvalVotesSchema,
} from '../row-mappers.js';
import { parseJsonColumn } from '../rows/parse-json-column.js';
import type { CreateApprovalResult, NewApproval } from '../store.js';
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
 * Creates a pending row inside a caller's transaction (the approval store's own `create`, or a turn's
 * suspension, which writes every pending row of an assistant message with it). An existing row for the
 * same call is returned untouched.
 */
export function prepareApprovalCreate(context: SqliteContext) {
  const { db } = context;
  const { byId, byCall, toApproval } = prepareApprovalRows(context);
  const insert = db.prepare(
    `INSERT INTO approvals (request_id, conversation_id, transcript_id, tool_call_id, turn_id, tool_name,
       permission_type, summary, details_json, args_hash, reason, requested_by, required_approvals, created_at,
       expires_at)
     VALUES (@requestId, @conversationId, @transcriptId, @toolCallId, @turnId, @toolName, @permissionType,
       @summary, @details, @argsHash, @reason, @requestedBy, @requiredApprovals, @now, @expiresAt)
     ON CONFLICT (transcript_id, tool_call_id) DO NOTHING`,
  );
  const audit = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
     VALUES (@at, @actor, 'approval.requested', @approvalId, @conversationId, @data)`,
  );
  return (approval: NewApproval, at: number): CreateApprovalResult => {
    const result = insert.run({
      ...approval,
      details: JSON.stringify({ arguments: approval.arguments }),
      now: at,
    });
    if (result.changes === 0) {
      const existing = byCall.get(approval.transcriptId, approval.toolCallId);
      if (!existing) throw new Error('approval conflict without a row');
      return { type: 'exists', approval: toApproval(existing) };
    }
    audit.run({
      at,
      actor: approval.requestedBy,
      approvalId: approval.requestId,
      conversationId: approval.conversationId,
      data: JSON.stringify({ tool: approval.toolName, summary: approval.summary }),
    });
    const row = byId.get(approval.requestId);
    if (!row) throw new Error('created approval vanished inside its own transaction');
    return { type: 'created', approval: toApproval(row) };
  };
}
