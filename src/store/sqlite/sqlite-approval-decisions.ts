import type { Approval } from '../records.js';
import type { ApprovalRow } from '../row-mappers.js';
import {
  type DecisionSnapshot,
  type DecisionWrites,
  planDecision,
  planExpiry,
  planRebind,
  type RebindInput,
} from '../rules/plan-decision.js';
import type { DecisionInput, RebindResult, ResolveOptions, ResolveResult } from '../store.js';
import { prepareApprovalRows, prepareCardInsert } from './sqlite-approval-rows.js';
import { prepareAuditInsert } from './sqlite-audit.js';
import { prepareTurnClaim } from './sqlite-claim.js';
import { type SqliteContext, writeTransaction } from './sqlite-context.js';
import { prepareGrantCreate } from './sqlite-grants.js';
import { prepareOutboxWriter } from './sqlite-outbox.js';
import { prepareReadyMark } from './sqlite-turn-writes.js';

/**
 * Deciding requests (a vote, the decision with its grant for "always", expiry), each in one commit with
 * its audit row and the rewrites of every card of the request.
 */
export function prepareApprovalDecisions(context: SqliteContext) {
  const { db, now } = context;
  const claimTurn = prepareTurnClaim(context);
  const markReady = prepareReadyMark(context);
  const writeOutbox = prepareOutboxWriter(context);
  const { byId, toApproval } = prepareApprovalRows(context);
  const insertCard = prepareCardInsert(context);
  const audit = prepareAuditInsert(context);
  // The compare-and-set: zero rows changed means somebody else decided first.
  const decide = db.prepare(
    `UPDATE approvals SET decision = @decision, decided_by = @decidedBy, resolved_at = @now, always_allow = @always,
       decision_reason = @reason
     WHERE request_id = @requestId AND decision IS NULL`,
  );
  const vote = db.prepare(
    'INSERT INTO approval_votes (request_id, user_id, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  // An edit applies only to the arguments the editor saw, and only while the request is open.
  const applyEdit = db.prepare(
    `UPDATE approvals SET details_json = @detailsJson, args_hash = @argsHash, summary = @summary
     WHERE request_id = @requestId AND decision IS NULL AND args_hash = @fromArgsHash`,
  );
  const dropVotes = db.prepare('DELETE FROM approval_votes WHERE request_id = ?');
  const createGrant = prepareGrantCreate(context);
  // `LIMIT +?`: SQLite compiles a bare bound LIMIT's value into the plan, so it would recompile every run.
  const overdue = db.prepare<[number, number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NULL AND expires_at <= ? ORDER BY expires_at LIMIT +?',
  );

  const pendingOthers = db.prepare<[string, string], { n: number }>(
    'SELECT count(*) AS n FROM approvals WHERE turn_id = ? AND resolved_at IS NULL AND request_id <> ?',
  );
  const snapshotOf = (row: ApprovalRow): DecisionSnapshot => ({
    approval: toApproval(row),
    othersPending: pendingOthers.get(row.turn_id, row.request_id)?.n ?? 0,
  });

  /**
   * Writes what the plan says; false when a fence no longer holds. The fences come first: the edit's
   * compare-and-set (which also needs the request open), then the decision's, and within one transaction
   * nothing changes the row between them, so a false comes back before anything is written.
   */
  const apply = (approval: Approval, writes: DecisionWrites, at: number): boolean => {
    const requestId = approval.requestId;
    if (writes.edit) {
      if (applyEdit.run({ requestId, ...writes.edit }).changes === 0) return false;
      dropVotes.run(requestId);
    }
    if (writes.decide) {
      const { decision, decidedBy, always, reason } = writes.decide;
      const changed = decide.run({ requestId, decision, decidedBy, now: at, always: always ? 1 : 0, reason });
      if (changed.changes === 0) return false;
    }
    if (writes.vote) vote.run(requestId, writes.vote.userId, at);
    if (writes.turnReady) markReady(approval.turnId, at);
    for (const entry of writes.audit) {
      audit(
        {
          actor: entry.actor,
          kind: entry.kind,
          approvalId: requestId,
          conversationId: approval.conversationId,
          data: { tool: approval.toolName, ...entry.data },
        },
        at,
      );
    }
    writeOutbox(writes.outbox, at);
    if (writes.grant) createGrant(writes.grant, at);
    return true;
  };

  const resolveInside = writeTransaction(
    db,
    (input: DecisionInput, options: ResolveOptions): ResolveResult => {
      const { lease } = options;
      const at = now();
      // The clicked message is a card of this request whatever the outcome: its ts may never have been
      // recorded (the process died right after posting it), and it must be rewritten with the others.
      const row = byId.get(input.requestId);
      if (!row) return { type: 'unknown' };
      if (options.card) insertCard({ ...options.card, requestId: row.request_id }, at);
      const snapshot = snapshotOf(row);
      const plan = planDecision(snapshot, input, at);
      if (plan.writes === undefined) return { type: plan.type, approval: snapshot.approval };
      if (!apply(snapshot.approval, plan.writes, at)) {
        // Another decision came first.
        const latest = byId.get(row.request_id);
        return { type: 'already-decided', approval: latest ? toApproval(latest) : snapshot.approval };
      }
      if (plan.type === 'vote-recorded') {
        return { type: 'vote-recorded', approval: plan.approval, remaining: plan.remaining };
      }
      // The decision that completes a turn's set also claims it for resume, in the same commit.
      const ready = plan.writes.turnReady;
      const claim = ready && lease ? claimTurn(row.turn_id, lease) : undefined;
      return {
        type: plan.type,
        approval: plan.approval,
        turnReady: ready,
        claim: claim?.type === 'claimed' ? claim : undefined,
      };
    },
  );
  const resolve = (input: DecisionInput, options: ResolveOptions = {}): Promise<ResolveResult> =>
    resolveInside(input, options);

  const expireOverdue = writeTransaction(db, (limit: number): Approval[] => {
    const at = now();
    const expired: Approval[] = [];
    for (const row of overdue.all(at, limit)) {
      const snapshot = snapshotOf(row);
      const plan = planExpiry(snapshot, at);
      if (apply(snapshot.approval, plan.writes, at)) expired.push(plan.approval);
    }
    return expired;
  });

  const rebind = writeTransaction(db, (input: RebindInput): RebindResult => {
    const at = now();
    const row = byId.get(input.requestId);
    if (!row) return { type: 'unchanged', approval: undefined };
    const snapshot = snapshotOf(row);
    const plan = planRebind(snapshot, input, at);
    if (plan.type !== 'rebound' || !apply(snapshot.approval, plan.writes, at)) {
      const latest = byId.get(row.request_id);
      return { type: 'unchanged', approval: latest ? toApproval(latest) : snapshot.approval };
    }
    return { type: 'rebound', approval: plan.approval };
  });

  return {
    resolve,
    rebind: async (input: RebindInput) => rebind(input),
    async expireOverdue(limit: number): Promise<Approval[]> {
      // Most sweeps find nothing overdue: a read says so without taking the write lock.
      if (overdue.all(now(), 1).length === 0) return [];
      return expireOverdue(limit);
    },
  };
}
