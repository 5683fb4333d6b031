import type { ApprovalRow } from '../row-mappers.js';
import type { ApprovalStore, PendingFilter } from '../store.js';
import { prepareApprovalDecisions } from './sqlite-approval-decisions.js';
import { prepareApprovalRows } from './sqlite-approval-rows.js';
import type { SqliteContext } from './sqlite-context.js';

// Reading rows and creating them live in sqlite-approval-rows.ts (only a turn's suspension creates rows),
// deciding them in sqlite-approval-decisions.ts; this file puts the store together.
export function createSqliteApprovals(context: SqliteContext): ApprovalStore {
  const { db } = context;
  const { byId, byCall, toApproval } = prepareApprovalRows(context);
  const decisions = prepareApprovalDecisions(context);
  // `LIMIT +?`: SQLite compiles a bare bound LIMIT's value into the plan, so it would recompile every run.
  const pendingAll = db.prepare<[number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NULL ORDER BY created_at, rowid LIMIT +?',
  );
  const pendingInChannel = db.prepare<[string, number], ApprovalRow>(
    `SELECT a.* FROM approvals a JOIN conversations c ON c.id = a.conversation_id
     WHERE a.resolved_at IS NULL AND c.channel_id = ? ORDER BY a.created_at, a.rowid LIMIT +?`,
  );
  const pendingInConversation = db.prepare<[string, number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NULL AND conversation_id = ? ORDER BY created_at, rowid LIMIT +?',
  );
  const recent = db.prepare<[number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NOT NULL ORDER BY resolved_at DESC LIMIT +?',
  );
  const forTurn = db.prepare<[string], ApprovalRow>(
    'SELECT * FROM approvals WHERE turn_id = ? ORDER BY created_at, rowid',
  );

  return {
    async get(requestId) {
      const row = byId.get(requestId);
      return row ? toApproval(row) : undefined;
    },
    async forCall(transcriptId, toolCallId) {
      const row = byCall.get(transcriptId, toolCallId);
      return row ? toApproval(row) : undefined;
    },
    resolve: async (input, options) => decisions.resolve(input, options),
    rebind: (input) => decisions.rebind(input),
    expireOverdue: async (limit = 500) => decisions.expireOverdue(limit),
    async pending(filter: PendingFilter = {}) {
      const limit = filter.limit ?? 500;
      const rows = filter.conversationId
        ? pendingInConversation.all(filter.conversationId, limit)
        : filter.channelId
          ? pendingInChannel.all(filter.channelId, limit)
          : pendingAll.all(limit);
      return rows.map(toApproval);
    },
    async recentlyDecided(limit) {
      return recent.all(limit).map(toApproval);
    },
    async forTurn(turnId) {
      return forTurn.all(turnId).map(toApproval);
    },
  };
}
