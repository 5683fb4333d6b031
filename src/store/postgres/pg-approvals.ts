import type { Approval } from '../records.js';
import {
  type DecisionSnapshot,
  type DecisionWrites,
  planDecision,
  planExpiry,
  planRebind,
  type RebindInput,
} from '../rules/plan-decision.js';
import type {
  ApprovalStore,
  DecisionInput,
  PendingFilter,
  RebindResult,
  ResolveOptions,
  ResolveResult,
} from '../store.js';
import {
  type ApprovalRowWithParts,
  approvalInside,
  approvalSelect,
  toPgApproval,
} from './pg-approval-rows.js';
import { insertAuditRow } from './pg-audit-chain.js';
import { claimInside } from './pg-claim.js';
import { momentSql, type PgContext, read, type Tx, transaction } from './pg-context.js';
import { createGrantInside } from './pg-grants.js';
import { writeOutbox } from './pg-outbox-writer.js';
import { markReady } from './pg-turn-writes.js';

type Row = ApprovalRowWithParts;

/** The request and how many of its turn's other requests still wait, read under the thread's lock. */
async function snapshotOf(tx: Tx, row: Row): Promise<DecisionSnapshot> {
  const others = await tx.one<{ n: number }>(
    `SELECT count(*)::int AS n FROM approvals WHERE turn_id = $1 AND resolved_at IS NULL AND request_id <> $2`,
    [row.turn_id, row.request_id],
  );
  return { approval: toPgApproval(row), othersPending: others?.n ?? 0 };
}

/**
 * Writes what the plan says; false when a fence no longer holds. The fences come first: the edit's
 * compare-and-set (which also needs the request open), then the decision's, and under the thread's lock
 * nothing changes the row between them, so a false comes back before anything is written.
 */
async function apply(tx: Tx, approval: Approval, writes: DecisionWrites): Promise<boolean> {
  const requestId = approval.requestId;
  if (writes.edit) {
    const { detailsJson, argsHash, summary, fromArgsHash } = writes.edit;
    const applied = await tx.run(
      `UPDATE approvals SET details_json = $2, args_hash = $3, summary = $4
       WHERE request_id = $1 AND decision IS NULL AND args_hash = $5`,
      [requestId, detailsJson, argsHash, summary, fromArgsHash],
    );
    if (applied === 0) return false;
    tx.later('DELETE FROM approval_votes WHERE request_id = $1', [requestId]);
  }
  if (writes.decide) {
    const { decision, decidedBy, always, reason } = writes.decide;
    // The compare-and-set: no row changed means somebody else decided first.
    const changed = await tx.run(
      `UPDATE approvals SET decision = $2, decided_by = $3, resolved_at = $4, always_allow = $5,
         decision_reason = $6
       WHERE request_id = $1 AND decision IS NULL`,
      [requestId, decision, decidedBy, tx.now, always ? 1 : 0, reason],
    );
    if (changed === 0) return false;
  }
  if (writes.vote) {
    tx.later(
      'INSERT INTO approval_votes (request_id, user_id, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
      [requestId, writes.vote.userId, tx.now],
    );
  }
  if (writes.turnReady) markReady(tx, approval.turnId);
  for (const entry of writes.audit) {
    insertAuditRow(tx, {
      actor: entry.actor,
      kind: entry.kind,
      approvalId: requestId,
      conversationId: approval.conversationId,
      data: { tool: approval.toolName, ...entry.data },
    });
  }
  writeOutbox(tx, writes.outbox);
  if (writes.grant) await createGrantInside(tx, writes.grant);
  return true;
}

async function resolveInside(tx: Tx, input: DecisionInput, options: ResolveOptions): Promise<ResolveResult> {
  const { lease } = options;
  // Decisions on any request of the thread queue up here: two people deciding the last two requests of a
  // turn at once must not both see "one left" and leave the turn waiting for ever. The lock, the card the
  // click came from and the request's row travel together; each statement after the lock reads a
  // snapshot taken once it is held.
  const answers = await tx.each([
    {
      text: `SELECT conversation_id, pg_advisory_xact_lock(hashtextextended(conversation_id, 0)) FROM approvals
             WHERE request_id = $1`,
      values: [input.requestId],
    },
    ...(options.card
      ? [
          {
            text: `INSERT INTO approval_cards (channel, ts, request_id, posted_at)
                   SELECT $1, $2, $3, ${tx.nowSql} WHERE EXISTS (SELECT 1 FROM approvals WHERE request_id = $3)
                   ON CONFLICT (channel, ts, request_id) DO NOTHING`,
            values: [options.card.channel, options.card.ts, input.requestId],
          },
        ]
      : []),
    { text: `${approvalSelect} WHERE a.request_id = $1`, values: [input.requestId] },
  ]);
  const row = answers.at(-1)?.rows[0] as Row | undefined;
  if (!row) return { type: 'unknown' };
  const snapshot = await snapshotOf(tx, row);
  const plan = planDecision(snapshot, input, tx.now);
  if (plan.writes === undefined) return { type: plan.type, approval: snapshot.approval };
  if (!(await apply(tx, snapshot.approval, plan.writes))) {
    return { type: 'already-decided', approval: await approvalInside(tx, row.request_id) };
  }
  if (plan.type === 'vote-recorded') {
    return { type: 'vote-recorded', approval: plan.approval, remaining: plan.remaining };
  }
  // The decision that completes a turn's set also claims it for resume, in the same commit.
  const ready = plan.writes.turnReady;
  const claim = ready && lease ? await claimInside(tx, row.turn_id, lease, { locked: true }) : undefined;
  return {
    type: plan.type,
    approval: plan.approval,
    turnReady: ready,
    claim: claim?.type === 'claimed' ? claim : undefined,
  };
}

/** See `ApprovalStore.rebind`: under the thread's lock, like a decision. */
async function rebindInside(tx: Tx, input: RebindInput): Promise<RebindResult> {
  const answers = await tx.each([
    {
      text: `SELECT conversation_id, pg_advisory_xact_lock(hashtextextended(conversation_id, 0)) FROM approvals
             WHERE request_id = $1`,
      values: [input.requestId],
    },
    { text: `${approvalSelect} WHERE a.request_id = $1`, values: [input.requestId] },
  ]);
  const row = answers.at(-1)?.rows[0] as Row | undefined;
  if (!row) return { type: 'unchanged', approval: undefined };
  const snapshot = await snapshotOf(tx, row);
  const plan = planRebind(snapshot, input, tx.now);
  if (plan.type !== 'rebound' || !(await apply(tx, snapshot.approval, plan.writes))) {
    return { type: 'unchanged', approval: await approvalInside(tx, row.request_id) };
  }
  return { type: 'rebound', approval: plan.approval };
}

export function createPgApprovals(context: PgContext): ApprovalStore {
  const byQuery = async (where: string, values: readonly unknown[]) =>
    (await read<Row>(context, `${approvalSelect} ${where}`, values)).map(toPgApproval);

  const expireBatch = (limit: number) =>
    transaction(context, async (tx) => {
      await tx.start();
      const due = await tx.rows<{ request_id: string; conversation_id: string }>(
        `SELECT request_id, conversation_id FROM approvals WHERE resolved_at IS NULL AND expires_at <= $1
         ORDER BY expires_at LIMIT $2`,
        [tx.now, limit],
      );
      // A thread another replica (a sweep or a click) holds right now is skipped, not waited for: that
      // replica settles its requests, and the next sweep looks again.
      const mine = new Set<string>();
      for (const conversation of new Set(due.map((row) => row.conversation_id))) {
        if (await tx.tryLockConversation(conversation)) mine.add(conversation);
      }
      const expired: Approval[] = [];
      for (const { request_id, conversation_id } of due) {
        if (!mine.has(conversation_id)) continue;
        const row = await tx.one<Row>(`${approvalSelect} WHERE a.request_id = $1`, [request_id]);
        if (!row || row.decision !== null) continue;
        const snapshot = await snapshotOf(tx, row);
        const plan = planExpiry(snapshot, tx.now);
        if (await apply(tx, snapshot.approval, plan.writes)) expired.push(plan.approval);
      }
      return expired;
    });

  return {
    async get(requestId) {
      return (await byQuery('WHERE a.request_id = $1', [requestId]))[0];
    },
    async forCall(transcriptId, toolCallId) {
      return (
        await byQuery('WHERE a.transcript_id = $1 AND a.tool_call_id = $2', [transcriptId, toolCallId])
      )[0];
    },
    resolve: (input, options = {}) => transaction(context, (tx) => resolveInside(tx, input, options)),
    rebind: (input) => transaction(context, (tx) => rebindInside(tx, input)),
    async expireOverdue(limit = 500) {
      // Most sweeps find nothing overdue: a read says so without a transaction.
      const any = await read(
        context,
        `SELECT 1 FROM approvals WHERE resolved_at IS NULL AND expires_at <= ${momentSql(context)} LIMIT 1`,
      );
      if (any.length === 0) return [];
      return expireBatch(limit);
    },
    async pending(filter: PendingFilter = {}) {
      const limit = filter.limit ?? 500;
      if (filter.conversationId) {
        return byQuery(
          'WHERE a.resolved_at IS NULL AND a.conversation_id = $1 ORDER BY a.created_at, a.seq LIMIT $2',
          [filter.conversationId, limit],
        );
      }
      if (filter.channelId) {
        return byQuery(
          `JOIN conversations c ON c.id = a.conversation_id
           WHERE a.resolved_at IS NULL AND c.channel_id = $1 ORDER BY a.created_at, a.seq LIMIT $2`,
          [filter.channelId, limit],
        );
      }
      return byQuery('WHERE a.resolved_at IS NULL ORDER BY a.created_at, a.seq LIMIT $1', [limit]);
    },
    recentlyDecided: (limit) =>
      byQuery('WHERE a.resolved_at IS NOT NULL ORDER BY a.resolved_at DESC LIMIT $1', [limit]),
    forTurn: (turnId) => byQuery('WHERE a.turn_id = $1 ORDER BY a.created_at, a.seq', [turnId]),
  };
}
