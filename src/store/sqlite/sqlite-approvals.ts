import { outboxKeys } from '../../outbox/outbox-message.js';
import type { Approval } from '../records.js';
import { type ApprovalRow, toApproval as approvalOf } from '../row-mappers.js';
import { cardState } from '../rules/edit-arguments.js';
import { gateDecision, tallyDecision } from '../rules/tally-decision.js';
import type {
  ApprovalStore,
  CreateApprovalResult,
  DecisionInput,
  Fence,
  Lease,
  NewApproval,
  PendingFilter,
  ResolveOptions,
  ResolveResult,
} from '../store.js';
import { prepareApprovalEdit } from './sqlite-approval-edit.js';
import { prepareReadyMark, prepareTurnClaim } from './sqlite-claim.js';
import { prepareFenceCheck, type SqliteContext, writeTransaction } from './sqlite-context.js';
import { prepareGrantCreate } from './sqlite-grants.js';
import { prepareOutboxWriter } from './sqlite-outbox.js';

/** Reading approval rows as records: the row, its votes and its cards. */
export function prepareApprovalRows({ db }: SqliteContext) {
  const byId = db.prepare<[string], ApprovalRow>('SELECT * FROM approvals WHERE request_id = ?');
  const byCall = db.prepare<[string, string], ApprovalRow>(
    'SELECT * FROM approvals WHERE transcript_id = ? AND tool_call_id = ?',
  );
  const votesFor = db.prepare<[string], { user_id: string }>(
    'SELECT user_id FROM approval_votes WHERE request_id = ? ORDER BY at, rowid',
  );
  const cardsOf = db.prepare<[string], { channel: string; ts: string }>(
    'SELECT channel, ts FROM approval_cards WHERE request_id = ? ORDER BY posted_at, rowid',
  );
  const toApproval = (row: ApprovalRow): Approval =>
    approvalOf(
      row,
      votesFor.all(row.request_id).map((v) => v.user_id),
      cardsOf.all(row.request_id),
    );
  return { byId, byCall, toApproval };
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

export function createSqliteApprovals(context: SqliteContext): ApprovalStore {
  const { db, now } = context;
  const claimTurn = prepareTurnClaim(context);
  const markReady = prepareReadyMark(context);
  const checkFence = prepareFenceCheck(context);
  const writeOutbox = prepareOutboxWriter(context);
  const createInside = prepareApprovalCreate(context);
  const { byId, byCall, toApproval } = prepareApprovalRows(context);
  const insertCard = db.prepare(
    `INSERT INTO approval_cards (channel, ts, request_id, posted_at) VALUES (@channel, @ts, @requestId, @now)
     ON CONFLICT (channel, ts) DO NOTHING`,
  );
  const votesFor = db.prepare<[string], { user_id: string }>(
    'SELECT user_id FROM approval_votes WHERE request_id = ? ORDER BY at, rowid',
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
  const overdue = db.prepare<[number, number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?',
  );
  const pendingAll = db.prepare<[number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NULL ORDER BY created_at, rowid LIMIT ?',
  );
  const pendingInChannel = db.prepare<[string, number], ApprovalRow>(
    `SELECT a.* FROM approvals a JOIN conversations c ON c.id = a.conversation_id
     WHERE a.resolved_at IS NULL AND c.channel_id = ? ORDER BY a.created_at, a.rowid LIMIT ?`,
  );
  const pendingInConversation = db.prepare<[string, number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NULL AND conversation_id = ? ORDER BY created_at, rowid LIMIT ?',
  );
  const recent = db.prepare<[number], ApprovalRow>(
    'SELECT * FROM approvals WHERE resolved_at IS NOT NULL ORDER BY resolved_at DESC LIMIT ?',
  );
  const forTurn = db.prepare<[string], ApprovalRow>(
    'SELECT * FROM approvals WHERE turn_id = ? ORDER BY created_at, rowid',
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

  const create = writeTransaction(db, (fence: Fence, approval: NewApproval): CreateApprovalResult => {
    checkFence(fence);
    return createInside(approval, now());
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

  const resolve = writeTransaction(
    db,
    (input: DecisionInput, options: ResolveOptions = {}): ResolveResult => {
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
      // An edit allows once: what "always" would cover is for the arguments the model proposes next time.
      const tally = tallyDecision(input.edit ? { ...input, always: false } : input, {
        counted,
        total: input.decision === 'allowed' ? votesFor.all(row.request_id).length : 0,
        required: row.required_approvals,
      });
      if (tally.type === 'already-voted') return { type: 'already-voted', approval: toApproval(row) };
      if (tally.type === 'vote-recorded') {
        const { votes, remaining } = tally;
        record(row, input.decidedBy, 'approval.vote', { votes, required: row.required_approvals }, at);
        rewriteCards(row, cardState(edits, `votes-${votes}`), at, deliverAs);
        return { type: 'vote-recorded', approval: reload(row.request_id), remaining };
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
        approval: reload(row.request_id),
        turnReady: ready,
        claim: claimIfReady(ready),
      };
    },
  );

  const expireOverdue = writeTransaction(db, (limit: number): Approval[] => {
    const at = now();
    const expired: Approval[] = [];
    for (const row of overdue.all(at, limit)) {
      if (expire(row, at)) expired.push(reload(row.request_id));
    }
    return expired;
  });

  return {
    create: async (fence, approval) => create(fence, approval),
    async get(requestId) {
      const row = byId.get(requestId);
      return row ? toApproval(row) : undefined;
    },
    async forCall(transcriptId, toolCallId) {
      const row = byCall.get(transcriptId, toolCallId);
      return row ? toApproval(row) : undefined;
    },
    resolve: async (input, options) => resolve(input, options),
    async expireOverdue(limit = 500) {
      // Most sweeps find nothing overdue: a read says so without taking the write lock.
      if (overdue.all(now(), 1).length === 0) return [];
      return expireOverdue(limit);
    },
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
