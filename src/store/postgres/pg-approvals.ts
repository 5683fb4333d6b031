import { outboxKeys } from '../outbox-message.js';
import type { Approval } from '../records.js';
import { cardState, changedArguments, editedDetails } from '../rules/edit-arguments.js';
import { gateDecision, tallyDecision } from '../rules/tally-decision.js';
import type {
  ApprovalStore,
  DecisionInput,
  Lease,
  PendingFilter,
  ResolveOptions,
  ResolveResult,
} from '../store.js';
import {
  type ApprovalRowWithParts,
  approvalInside,
  approvalParts,
  approvalSelect,
  createApprovalInside,
  toPgApproval,
} from './pg-approval-rows.js';
import { insertAuditRow } from './pg-audit-chain.js';
import { claimInside, markReady } from './pg-claim.js';
import { checkFence, momentSql, type PgContext, read, type Tx, transaction } from './pg-context.js';
import { createGrantInside } from './pg-grants.js';
import { writeOutbox } from './pg-outbox-writer.js';

type Row = ApprovalRowWithParts;

function record(tx: Tx, row: Row, actor: string, kind: string, data: Record<string, unknown>): void {
  insertAuditRow(tx, {
    actor,
    kind,
    approvalId: row.request_id,
    conversationId: row.conversation_id,
    data: { tool: row.tool_name, ...data },
  });
}

/** Every card of the request is rewritten once per state it reaches (a vote, the decision, expiry). */
function rewriteCards(tx: Tx, row: Row, state: string, deliverAs?: Lease) {
  writeOutbox(
    tx,
    [
      {
        key: outboxKeys.cardUpdate(row.request_id, state),
        conversationId: row.conversation_id,
        turnId: row.turn_id,
        requestId: row.request_id,
        message: { type: 'card-update', requestId: row.request_id },
      },
    ],
    deliverAs,
  );
}

/** A decided request as it reads after its decision, with how many of its turn's requests still wait. */
type Decided = Row & { others_pending: number };

/**
 * The compare-and-set: no row back means somebody else decided first. The row comes back as decided,
 * with its votes and cards and the count of its turn's other requests still undecided (read under the
 * thread's lock, so nothing changes them before commit).
 */
async function decide(
  tx: Tx,
  row: Row,
  decision: 'allowed' | 'denied' | 'expired',
  decidedBy: string | null,
  always: boolean,
  reason: string | null = null,
): Promise<Decided | undefined> {
  return tx.one<Decided>(
    `UPDATE approvals a SET decision = $2, decided_by = $3, resolved_at = $4, always_allow = $5,
       decision_reason = $6
     WHERE a.request_id = $1 AND a.decision IS NULL
     RETURNING a.*, ${approvalParts('a')},
       (SELECT count(*) FROM approvals p WHERE p.turn_id = a.turn_id AND p.resolved_at IS NULL
          AND p.request_id <> a.request_id)::int AS others_pending`,
    [row.request_id, decision, decidedBy, tx.now, always ? 1 : 0, reason],
  );
}

async function expire(tx: Tx, row: Row, deliverAs?: Lease): Promise<Decided | undefined> {
  const decided = await decide(tx, row, 'expired', null, false);
  if (!decided) return undefined;
  markReady(tx, row.turn_id);
  record(tx, row, 'holdfast', 'approval.expired', { expiresAt: row.expires_at });
  rewriteCards(tx, row, 'expired', deliverAs);
  return decided;
}

async function resolveInside(tx: Tx, input: DecisionInput, options: ResolveOptions): Promise<ResolveResult> {
  const { lease, deliverAs } = options;
  // Decisions on any request of the thread queue up here: two people deciding the last two requests of a
  // turn at once must not both see "one left" and leave the turn waiting for ever. The lock, the card the
  // click came from and the request's row travel as one message; each statement after the lock reads a
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
  const claimIfReady = async (ready: boolean) => {
    if (!ready || !lease) return undefined;
    const claim = await claimInside(tx, row.turn_id, lease, { locked: true });
    return claim.type === 'claimed' ? claim : undefined;
  };
  const gate = gateDecision({ decision: row.decision, expiresAt: row.expires_at }, tx.now);
  if (gate.type === 'already-decided') return { type: 'already-decided', approval: toPgApproval(row) };
  if (gate.type === 'expire') {
    const expired = await expire(tx, row, deliverAs);
    if (!expired) return { type: 'already-decided', approval: await approvalInside(tx, row.request_id) };
    const ready = expired.others_pending === 0;
    return {
      type: 'expired',
      approval: toPgApproval(expired),
      turnReady: ready,
      claim: await claimIfReady(ready),
    };
  }
  const current = toPgApproval(row);
  let edits = current.edit?.count ?? 0;
  if (input.decision === 'allowed' && input.edit) {
    const { edit } = input;
    const next = editedDetails(current, edit, input.decidedBy, tx.now);
    // An edit applies only to the arguments the editor saw, and only while the request is open.
    const applied = await tx.run(
      `UPDATE approvals SET details_json = $2, args_hash = $3, summary = $4
       WHERE request_id = $1 AND decision IS NULL AND args_hash = $5`,
      [row.request_id, next.json, edit.argsHash, edit.summary, edit.fromArgsHash],
    );
    if (applied === 0) return { type: 'arguments-changed', approval: current };
    // Approvals given so far were for the arguments as they were; the quorum starts over.
    await tx.run('DELETE FROM approval_votes WHERE request_id = $1', [row.request_id]);
    edits = next.edit.count;
    await record(tx, row, input.decidedBy, 'approval.edited', {
      fromArgsHash: edit.fromArgsHash,
      argsHash: edit.argsHash,
      changed: changedArguments(current.arguments, edit.arguments),
      edits,
    });
  }
  let counted = false;
  let total = 0;
  if (input.decision === 'allowed') {
    // The vote and the tally in one statement: the count reads the snapshot from before the insert.
    const votes = await tx.one<{ counted: number; before: number }>(
      `WITH vote AS (
         INSERT INTO approval_votes (request_id, user_id, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING
         RETURNING 1)
       SELECT (SELECT count(*) FROM vote)::int AS counted,
         (SELECT count(*) FROM approval_votes WHERE request_id = $1)::int AS before`,
      [row.request_id, input.decidedBy, tx.now],
    );
    counted = (votes?.counted ?? 0) === 1;
    total = (votes?.before ?? 0) + (votes?.counted ?? 0);
  }
  // An edit allows once: what "always" would cover is for the arguments the model proposes next time.
  const tally = tallyDecision(input.edit ? { ...input, always: false } : input, {
    counted,
    total,
    required: row.required_approvals,
  });
  if (tally.type === 'already-voted') return { type: 'already-voted', approval: toPgApproval(row) };
  if (tally.type === 'vote-recorded') {
    record(tx, row, input.decidedBy, 'approval.vote', {
      votes: tally.votes,
      required: row.required_approvals,
    });
    rewriteCards(tx, row, cardState(edits, `votes-${tally.votes}`), deliverAs);
    return {
      type: 'vote-recorded',
      approval: await approvalInside(tx, row.request_id),
      remaining: tally.remaining,
    };
  }
  const decided = await decide(tx, row, tally.decision, input.decidedBy, tally.always, input.reason ?? null);
  if (!decided) {
    return { type: 'already-decided', approval: await approvalInside(tx, row.request_id) };
  }
  markReady(tx, row.turn_id);
  record(tx, row, input.decidedBy, `approval.${tally.decision}`, {
    always: tally.always,
    ...(input.reason === undefined ? {} : { reason: input.reason }),
  });
  rewriteCards(tx, row, tally.decision, deliverAs);
  if (tally.always) {
    const grant = input.grant ?? { scope: 'conversation' as const, scopeId: row.conversation_id };
    await createGrantInside(tx, {
      ...grant,
      toolName: row.tool_name,
      createdBy: input.decidedBy,
      sourceRequestId: row.request_id,
    });
  }
  const ready = decided.others_pending === 0;
  return {
    type: 'decided',
    approval: toPgApproval(decided),
    turnReady: ready,
    claim: await claimIfReady(ready),
  };
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
        const decided = row && row.decision === null ? await expire(tx, row) : undefined;
        if (decided) expired.push(toPgApproval(decided));
      }
      return expired;
    });

  return {
    create: (fence, approval) =>
      transaction(context, async (tx) => {
        await checkFence(tx, fence);
        return createApprovalInside(tx, approval);
      }),
    async get(requestId) {
      return (await byQuery('WHERE a.request_id = $1', [requestId]))[0];
    },
    async forCall(transcriptId, toolCallId) {
      return (
        await byQuery('WHERE a.transcript_id = $1 AND a.tool_call_id = $2', [transcriptId, toolCallId])
      )[0];
    },
    resolve: (input, options = {}) => transaction(context, (tx) => resolveInside(tx, input, options)),
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
