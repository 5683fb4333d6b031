import { type NewOutboxEntry, outboxKeys } from '../outbox-message.js';
import type { DecisionInput } from '../ports/approval-store.js';
import type { NewGrant } from '../ports/grant-store.js';
import type { Approval, ApprovalDecision, AuditKind } from '../records.js';
import { cardState, changedArguments, editedDetails } from './edit-arguments.js';
import { gateDecision, tallyDecision } from './tally-decision.js';

/** What a decision reads before it writes: read under the thread's write lock, so it holds until commit. */
export interface DecisionSnapshot {
  /** The request as it stands, with its votes and cards. */
  readonly approval: Approval;
  /** How many other requests of its turn are still undecided. */
  readonly othersPending: number;
}

/** An audit row of the request (its id, conversation and tool are the request's). */
export interface DecisionAudit {
  readonly actor: string;
  readonly kind: AuditKind;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * What one decision writes, in this order, in one transaction. Its fences: the request must still be
 * undecided when `decide` writes, and still hold the arguments the editor saw when `edit` writes; a fence
 * that no longer holds means another decision came first, and nothing is written.
 */
export interface DecisionWrites {
  /** The edited arguments; the votes given for the old ones are dropped with it. */
  readonly edit?: {
    readonly detailsJson: string;
    readonly argsHash: string;
    readonly summary: string;
    readonly fromArgsHash: string;
  };
  readonly vote?: { readonly userId: string };
  readonly decide?: {
    readonly decision: ApprovalDecision;
    readonly decidedBy: string | null;
    readonly always: boolean;
    readonly reason: string | null;
  };
  readonly audit: readonly DecisionAudit[];
  /** Every card of the request is rewritten once per state it reaches (a vote, the decision, expiry). */
  readonly outbox: readonly NewOutboxEntry[];
  readonly grant?: NewGrant;
  /** The turn's last request is decided: the turn is marked ready, and claimed when a lease is offered. */
  readonly turnReady: boolean;
}

/** Nothing to write: the request is as the snapshot shows it. */
export interface Unchanged {
  readonly type: 'already-decided' | 'already-voted' | 'arguments-changed';
  readonly writes?: undefined;
}

export interface PlannedDecision {
  readonly type: 'decided' | 'expired' | 'vote-recorded';
  readonly writes: DecisionWrites;
  /** The request as it reads once the writes commit. */
  readonly approval: Approval;
  /** Approvals still needed (a vote that did not reach the quorum). */
  readonly remaining: number;
}

export type DecisionPlan = Unchanged | PlannedDecision;

/**
 * Decides a request, once, for every store: the gate (decided already, or overdue and so expired now), an
 * approver's edit, the vote and the quorum, the decision, its audit, the card rewrites, the grant an
 * "Always allow" makes, and whether the turn may resume. A store reads the snapshot, applies the writes
 * and checks their fences; it decides nothing itself.
 */
export function planDecision(snapshot: DecisionSnapshot, input: DecisionInput, at: number): DecisionPlan {
  const { approval } = snapshot;
  const gate = gateDecision(approval, at);
  if (gate.type === 'already-decided') return { type: 'already-decided' };
  if (gate.type === 'expire') return planExpiry(snapshot, at);

  let current = approval;
  let edits = approval.edit?.count ?? 0;
  const audit: DecisionAudit[] = [];
  let edit: DecisionWrites['edit'];
  if (input.decision === 'allowed' && input.edit) {
    // An edit applies only to the arguments the editor saw.
    if (approval.argsHash !== input.edit.fromArgsHash) return { type: 'arguments-changed' };
    const next = editedDetails(approval, input.edit, input.decidedBy, at);
    edit = {
      detailsJson: next.json,
      argsHash: input.edit.argsHash,
      summary: input.edit.summary,
      fromArgsHash: input.edit.fromArgsHash,
    };
    edits = next.edit.count;
    audit.push(
      auditOf(input.decidedBy, 'approval.edited', {
        fromArgsHash: input.edit.fromArgsHash,
        argsHash: input.edit.argsHash,
        changed: changedArguments(approval.arguments, input.edit.arguments),
        edits,
      }),
    );
    // Approvals given so far were for the arguments as they were; the quorum starts over.
    current = {
      ...approval,
      arguments: input.edit.arguments,
      argsHash: input.edit.argsHash,
      summary: input.edit.summary,
      edit: next.edit,
      approvedBy: [],
    };
  }

  const allowing = input.decision === 'allowed';
  const counted = allowing && !current.approvedBy.includes(input.decidedBy);
  const voters = counted ? [...current.approvedBy, input.decidedBy] : current.approvedBy;
  // An edit allows once: what "always" would cover is for the arguments the model proposes next time.
  const tally = tallyDecision(input.edit ? { ...input, always: false } : input, {
    counted,
    total: voters.length,
    required: approval.requiredApprovals,
  });
  if (tally.type === 'already-voted') return { type: 'already-voted' };
  const vote = counted ? { userId: input.decidedBy } : undefined;
  if (tally.type === 'vote-recorded') {
    audit.push(
      auditOf(input.decidedBy, 'approval.vote', { votes: tally.votes, required: approval.requiredApprovals }),
    );
    return {
      type: 'vote-recorded',
      writes: {
        edit,
        vote,
        audit,
        outbox: [cardRewrite(approval, cardState(edits, `votes-${tally.votes}`))],
        turnReady: false,
      },
      approval: { ...current, approvedBy: voters },
      remaining: tally.remaining,
    };
  }

  const reason = input.reason ?? null;
  audit.push(
    auditOf(input.decidedBy, `approval.${tally.decision}`, {
      always: tally.always,
      ...(input.reason === undefined ? {} : { reason: input.reason }),
    }),
  );
  const grant: NewGrant | undefined = tally.always
    ? {
        ...(input.grant ?? { scope: 'conversation' as const, scopeId: approval.conversationId }),
        toolName: approval.toolName,
        createdBy: input.decidedBy,
        sourceRequestId: approval.requestId,
      }
    : undefined;
  return {
    type: 'decided',
    writes: {
      edit,
      vote,
      decide: { decision: tally.decision, decidedBy: input.decidedBy, always: tally.always, reason },
      audit,
      outbox: [cardRewrite(approval, tally.decision)],
      grant,
      turnReady: snapshot.othersPending === 0,
    },
    approval: {
      ...current,
      ...(allowing ? { approvedBy: voters } : {}),
      decision: tally.decision,
      decidedBy: input.decidedBy,
      resolvedAt: at,
      always: tally.always,
      decisionReason: reason,
    },
    remaining: 0,
  };
}

/** An overdue request expires: decided by nobody, audited, its cards rewritten, its turn resumed if last. */
export function planExpiry(snapshot: DecisionSnapshot, at: number): PlannedDecision {
  const { approval } = snapshot;
  return {
    type: 'expired',
    writes: {
      decide: { decision: 'expired', decidedBy: null, always: false, reason: null },
      audit: [auditOf('holdfast', 'approval.expired', { expiresAt: approval.expiresAt })],
      outbox: [cardRewrite(approval, 'expired')],
      turnReady: snapshot.othersPending === 0,
    },
    approval: {
      ...approval,
      decision: 'expired',
      decidedBy: null,
      resolvedAt: at,
      always: false,
      decisionReason: null,
    },
    remaining: 0,
  };
}

function auditOf(actor: string, kind: AuditKind, data: Record<string, unknown>): DecisionAudit {
  return { actor, kind, data };
}

function cardRewrite(approval: Approval, state: string): NewOutboxEntry {
  return {
    key: outboxKeys.cardUpdate(approval.requestId, state),
    conversationId: approval.conversationId,
    turnId: approval.turnId,
    requestId: approval.requestId,
    message: { type: 'card-update', requestId: approval.requestId },
  };
}

/** A request's tool was redefined by its server: the request is bound to the tool as it is now. */
export interface RebindInput {
  readonly requestId: string;
  /** The binding the request was made with, as the caller read it. */
  readonly fromArgsHash: string;
  /** The same arguments bound to the tool's definition now. */
  readonly argsHash: string;
  /** What changed, in words for people ("its description changed"). */
  readonly changed: string;
}

/**
 * A request whose tool changed before anyone allowed it is shown again, bound to the tool as it is now:
 * the approvals given for the old definition no longer count, a note says what changed, a new card is
 * posted and the old cards are rewritten to match (each still works until the request is decided). A
 * request decided, overdue or bound again by someone else already is left as it is.
 */
export function planRebind(
  snapshot: DecisionSnapshot,
  input: RebindInput,
  at: number,
): Unchanged | RebindPlan {
  const { approval } = snapshot;
  // An overdue request is the sweep's to expire; it is not shown again.
  if (gateDecision(approval, at).type !== 'open') return { type: 'already-decided' };
  if (approval.argsHash !== input.fromArgsHash) return { type: 'arguments-changed' };
  const state = `rebound-${input.argsHash.slice(0, 16)}`;
  const entry = (key: string, message: NewOutboxEntry['message']): NewOutboxEntry => ({
    key,
    conversationId: approval.conversationId,
    turnId: approval.turnId,
    requestId: approval.requestId,
    message,
  });
  return {
    type: 'rebound',
    writes: {
      edit: {
        detailsJson: JSON.stringify(
          approval.edit
            ? { arguments: approval.arguments, edit: approval.edit }
            : { arguments: approval.arguments },
        ),
        argsHash: input.argsHash,
        summary: approval.summary,
        fromArgsHash: input.fromArgsHash,
      },
      audit: [
        auditOf('holdfast', 'approval.rebound', {
          fromArgsHash: input.fromArgsHash,
          argsHash: input.argsHash,
          changed: input.changed,
        }),
      ],
      outbox: [
        entry(
          outboxKeys.turnNotice(
            approval.turnId,
            `tool-changed:${approval.requestId}:${input.argsHash.slice(0, 16)}`,
          ),
          {
            type: 'turn-notice',
            turnId: approval.turnId,
            notice: { type: 'tool-changed', tool: approval.toolName, changed: input.changed },
          },
        ),
        entry(`${outboxKeys.card(approval.requestId)}:${state}`, {
          type: 'approval-card',
          requestId: approval.requestId,
        }),
        cardRewrite(approval, state),
      ],
      turnReady: false,
    },
    approval: { ...approval, argsHash: input.argsHash, approvedBy: [] },
  };
}

export interface RebindPlan {
  readonly type: 'rebound';
  readonly writes: DecisionWrites;
  readonly approval: Approval;
}
