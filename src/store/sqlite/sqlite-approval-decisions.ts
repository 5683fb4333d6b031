import { outboxKeys } from '../outbox-message.js';
import type { Approval } from '../records.js';
import type { ApprovalRow } from '../row-mappers.js';
import { cardState } from '../rules/edit-arguments.js';
import { gateDecision, tallyDecision } from '../rules/tally-decision.js';
import type { DecisionInput, Lease, ResolveOptions, ResolveResult } from '../store.js';
import { prepareApprovalEdit } from './sqlite-approval-edit.js';
import { prepareApprovalRows } from './sqlite-approval-rows.js';
import { handClaimAtCommit, prepareReadyMark, prepareTurnClaim } from './sqlite-claim.js';
import { queueWrite, type SqliteContext, writeTransaction } from './sqlite-context.js';
import { prepareGrantCreate } from './sqlite-grants.js';
import { prepareOutboxWriter } from './sqlite-outbox.js';

/**
 * Deciding requests (a vote, the decision with its grant for "always", expiry), each in one commit with
 * its audit row and the rewrites of every card of the request.
 */
export function prepareApprovalDecisions(context: SqliteContext) {
  const { db, now } = context;
  const claimTurn = prepareTurnClaim(context);
  const markReady = prepareReadyMark(context);
  const writeOutbox = prepareOutboxWriter(context);
  const { byId, votesFor, toApproval } = prepareApprovalRows(context);
  const insertCard = db.prepare(
    `INSERT INTO approval_cards (channel, ts, request_id, posted_at) VALUES (@channel, @ts, @requestId, @now)
     ON CONFLICT (channel, ts, request_id) DO NOTHING`,
  );
  const audit = db.prepare(
    `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json)
     VALUES (@at, @actor, @kind, @approvalId, @conversationId, @data)`,
  );
  // The compare-and-set: zero rows changed means somebody else decided first.
  const decide = db.prepare(
    `UPDATE approvals SET decision = @decision, decided_by = @decidedBy, resolved_at = @now, always_allow = @always,
       decision_reason = @reason
     WHERE request_id = @requestId AND decision IS NULL`,
  );
  const vote = db.prepare(
    'INSERT INTO approval_votes (request_id, user_id, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const applyEdit = prepareApprovalEdit(context);
  const createGrant = prepareGrantCreate(context);
  const pendingForTurn = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM approvals WHERE turn_id = ? AND resolved_at IS NULL',
  );
  // `LIMIT +?`: SQLite compiles a bare bound LIMIT's value into the plan, so it would recompile every run.
  const overdue = db.prepare<[number, number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NULL AND expires_at <= ? ORDER BY expires_at LIMIT +?',
  );

  // Every card of the request is rewritten once per state it reaches (a vote, the decision, expiry).
  const rewriteCards = (row: ApprovalRow, state: string, at: number, deliverAs?: Lease) =>
    writeOutbox(
      [
        {
          key: outboxKeys.cardUpdate(row.request_id, state),
          conversationId: row.conversation_id,
          turnId: row.turn_id,
          requestId: row.request_id,
          message: { type: 'card-update', requestId: row.request_id },
        },
      ],
      at,
      deliverAs,
    );

  const reload = (requestId: string): Approval => {
    const row = byId.get(requestId);
    if (!row) throw new Error(`approval ${requestId} vanished inside its own transaction`);
    return toApproval(row);
  };

  const record = (row: ApprovalRow, actor: string, kind: string, data: Record<string, unknown>, at: number) =>
    audit.run({
      at,
      actor,
      kind,
      approvalId: row.request_id,
      conversationId: row.conversation_id,
      data: JSON.stringify({ tool: row.tool_name, ...data }),
    });

  const expire = (row: ApprovalRow, at: number, deliverAs?: Lease): boolean => {
    const changed = decide.run({
      requestId: row.request_id,
      decision: 'expired',
      decidedBy: null,
      now: at,
      always: 0,
      reason: null,
    });
    if (changed.changes === 0) return false;
    markReady(row.turn_id, at);
    record(row, 'holdfast', 'approval.expired', { expiresAt: row.expires_at }, at);
    rewriteCards(row, 'expired', at, deliverAs);
    return true;
  };

  const resolveInside = db.transaction((input: DecisionInput, options: ResolveOptions): ResolveResult => {
    const { lease, deliverAs } = options;
    const row = byId.get(input.requestId);
    if (!row) return { type: 'unknown' };
    const at = now();
    // The clicked message is a card of this request whatever the outcome: its ts may never have been
    // recorded (the process died right after posting it), and it must be rewritten with the others.
    if (options.card) insertCard.run({ ...options.card, requestId: row.request_id, now: at });
    const gate = gateDecision({ decision: row.decision, expiresAt: row.expires_at }, at);
    if (gate.type === 'already-decided') return { type: 'already-decided', approval: toApproval(row) };
    const turnReady = () => (pendingForTurn.get(row.turn_id)?.n ?? 0) === 0;
    // The decision that completes a turn's set also claims it for resume, in the same commit.
    const claimIfReady = (ready: boolean) => {
      if (!ready || !lease) return undefined;
      const claim = claimTurn(row.turn_id, lease);
      return claim.type === 'claimed' ? claim : undefined;
    };
    if (gate.type === 'expire') {
      expire(row, at, deliverAs);
      const ready = turnReady();
      return {
        type: 'expired',
        approval: reload(row.request_id),
        turnReady: ready,
        claim: claimIfReady(ready),
      };
    }
    const current = toApproval(row);
    let edits = current.edit?.count ?? 0;
    if (input.decision === 'allowed' && input.edit) {
      const applied = applyEdit(current, input.edit, input.decidedBy, at);
      if (applied === undefined) return { type: 'arguments-changed', approval: current };
      edits = applied;
    }
    const counted =
      input.decision === 'allowed' && vote.run(row.request_id, input.decidedBy, at).changes === 1;
    const voters =
      input.decision === 'allowed' ? votesFor.all(row.request_id).map((voter) => voter.user_id) : [];
    // An edit allows once: what "always" would cover is for the arguments the model proposes next time.
    const tally = tallyDecision(input.edit ? { ...input, always: false } : input, {
      counted,
      total: voters.length,
      required: row.required_approvals,
    });
    // The request as this transaction leaves it, from what it read and wrote: a decision is on the hot
    // path, and reading the row back costs two statements. An edit rewrote the details: that is read.
    const after = (changes: Partial<Approval>): Approval =>
      input.edit ? reload(row.request_id) : { ...current, ...changes };
    if (tally.type === 'already-voted') return { type: 'already-voted', approval: current };
    if (tally.type === 'vote-recorded') {
      const { votes, remaining } = tally;
      record(row, input.decidedBy, 'approval.vote', { votes, required: row.required_approvals }, at);
      rewriteCards(row, cardState(edits, `votes-${votes}`), at, deliverAs);
      return { type: 'vote-recorded', approval: after({ approvedBy: voters }), remaining };
    }
    const always = tally.always;
    const changed = decide.run({
      requestId: row.request_id,
      decision: tally.decision,
      decidedBy: input.decidedBy,
      now: at,
      always: always ? 1 : 0,
      reason: input.reason ?? null,
    });
    if (changed.changes === 0) return { type: 'already-decided', approval: reload(row.request_id) };
    markReady(row.turn_id, at);
    record(
      row,
      input.decidedBy,
      `approval.${tally.decision}`,
      { always, ...(input.reason === undefined ? {} : { reason: input.reason }) },
      at,
    );
    rewriteCards(row, tally.decision, at, deliverAs);
    if (always) {
      const grant = input.grant ?? { scope: 'conversation' as const, scopeId: row.conversation_id };
      createGrant(
        {
          ...grant,
          toolName: row.tool_name,
          createdBy: input.decidedBy,
          sourceRequestId: row.request_id,
        },
        at,
      );
    }
    const ready = turnReady();
    return {
      type: 'decided',
      approval: after({
        ...(input.decision === 'allowed' ? { approvedBy: voters } : {}),
        decision: tally.decision,
        decidedBy: input.decidedBy,
        resolvedAt: at,
        always,
        decisionReason: input.reason ?? null,
      }),
      turnReady: ready,
      claim: claimIfReady(ready),
    };
  });
  // The resumed turn may read and plan while the decision's commit reaches the disk; the call it runs
  // first waits for `onDisk` (see `ClaimedTurn.onDisk`), as the clicker's reply waits for the promise.
  const resolve = (input: DecisionInput, options: ResolveOptions = {}): Promise<ResolveResult> =>
    queueWrite(db, () => resolveInside(input, options), { onCommit: handClaimAtCommit(options.onClaimed) });

  const expireOverdue = writeTransaction(db, (limit: number): Approval[] => {
    const at = now();
    const expired: Approval[] = [];
    for (const row of overdue.all(at, limit)) {
      if (expire(row, at)) expired.push(reload(row.request_id));
    }
    return expired;
  });

  return {
    resolve,
    async expireOverdue(limit: number): Promise<Approval[]> {
      // Most sweeps find nothing overdue: a read says so without taking the write lock.
      if (overdue.all(now(), 1).length === 0) return [];
      return expireOverdue(limit);
    },
  };
}
