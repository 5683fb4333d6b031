import type { Approval } from '../records.js';
import { type ArgumentsEdit, changedArguments, editedDetails } from '../rules/edit-arguments.js';
import type { SqliteContext } from './sqlite-context.js';

/**
 * Applies an approver's edit inside a decision's transaction: the row takes the edited arguments, hash and
 * summary (the proposal kept in its details), votes for the old arguments are dropped, and the edit is
 * audited. Returns how many edits the request has had, or undefined when it no longer holds the arguments
 * the editor saw (or is decided), in which case nothing was written.
 */
export function prepareApprovalEdit({ db }: SqliteContext) {
  // An edit applies only to the arguments the editor saw, and only while the request is open.
  const apply = db.prepare(
    `UPDATE approvals SET details_json = @details, args_hash = @argsHash, summary = @summary
     WHERE request_id = @requestId AND decision IS NULL AND args_hash = @fromArgsHash`,
  );
  const dropVotes = db.prepare('DELETE FROM approval_votes WHERE request_id = ?');
  const audit = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
     VALUES (@at, @actor, 'approval.edited', @approvalId, @conversationId, @data)`,
  );
  return (current: Approval, edit: ArgumentsEdit, by: string, at: number): number | undefined => {
    const next = editedDetails(current, edit, by, at);
    const applied = apply.run({
      requestId: current.requestId,
      details: next.json,
      argsHash: edit.argsHash,
      summary: edit.summary,
      fromArgsHash: edit.fromArgsHash,
    });
    if (applied.changes === 0) return undefined;
    // Approvals given so far were for the arguments as they were; the quorum starts over.
    dropVotes.run(current.requestId);
    audit.run({
      at,
      actor: by,
      approvalId: current.requestId,
      conversationId: current.conversationId,
      data: JSON.stringify({
        tool: current.toolName,
        fromArgsHash: edit.fromArgsHash,
        argsHash: edit.argsHash,
        changed: changedArguments(current.arguments, edit.arguments),
        edits: next.edit.count,
      }),
    });
    return next.edit.count;
  };
}
