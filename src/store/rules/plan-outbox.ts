import type {
  DeliveryProgress,
  NewOutboxEntry,
  OutboxClaim,
  OutboxEntry,
  OutboxStatus,
} from '../outbox-message.js';
import type { ClaimToken, CompletedDelivery } from '../ports/outbox-store.js';
import type { Lease } from '../ports/turn-claim.js';
import type { AuditKind } from '../records.js';

/**
 * What an outbox transition reads before it writes: the row as it stands, and its claim counter (kept
 * when the claim is cleared, so every later claim gets a token no earlier holder ever had).
 */
export interface OutboxSnapshot {
  readonly row: OutboxEntry;
  readonly claimToken: number;
}

/** A row to insert; a key already written is left alone, so a retried state change posts nothing twice. */
export interface OutboxInsert {
  readonly key: string;
  readonly conversationId: string;
  readonly turnId: string | null;
  readonly requestId: string | null;
  readonly messageJson: string;
  readonly nextAttemptAt: number;
  readonly createdAt: number;
}

/** Every column a transition may change, as it leaves them. */
export interface OutboxRowState {
  readonly status: OutboxStatus;
  readonly claim: OutboxClaim | null;
  readonly claimToken: number;
  readonly attempts: number;
  readonly inDoubt: boolean;
  readonly nextAttemptAt: number;
  readonly progress: DeliveryProgress;
  readonly lastError: string | null;
  readonly finishedAt: number | null;
}

/**
 * The fence of a row's update: it is still pending and its claim is still the one the snapshot showed
 * (owner null: unclaimed). Every claim raises the token, so a fence that no longer holds means another
 * process claimed the row since, or the holder recorded an outcome: nothing is written.
 */
export interface OutboxFence {
  readonly owner: string | null;
  readonly token: number;
}

/** What one transition writes, in this order, in one commit; the update's fence is checked first. */
export interface OutboxWrites {
  readonly update?: { readonly id: number; readonly fence: OutboxFence; readonly set: OutboxRowState };
  /** Posted messages that become cards of a request (clicks on them decide it; rewrites reach them). */
  readonly cards: ReadonlyArray<{
    readonly channel: string;
    readonly ts: string;
    readonly requestId: string;
  }>;
  readonly audit: ReadonlyArray<{
    readonly actor: string;
    readonly kind: AuditKind;
    readonly approvalId: string | null;
    readonly conversationId: string;
    readonly data: Readonly<Record<string, unknown>>;
  }>;
  readonly insert: readonly OutboxInsert[];
}

export type OutboxPlan =
  | { readonly type: 'planned'; readonly writes: OutboxWrites; readonly row: OutboxEntry }
  /** The row is not (or no longer) the caller's to change: nothing to write. */
  | { readonly type: 'refused'; readonly writes?: undefined };

const refused: OutboxPlan = { type: 'refused' };

/** Rows a state change writes, unclaimed and due at once; the first worker to claim one sends it. */
export function planOutboxWrite(entries: readonly NewOutboxEntry[], at: number): OutboxInsert[] {
  return entries.map((entry) => ({
    key: entry.key,
    conversationId: entry.conversationId,
    turnId: entry.turnId ?? null,
    requestId: entry.requestId ?? null,
    messageJson: JSON.stringify(entry.message),
    nextAttemptAt: at,
    createdAt: at,
  }));
}

/**
 * Claims a row for sending: only a pending, due row whose claim is absent, lapsed, or held by
 * `takeOverFrom`. Taking over a claim that never recorded an outcome marks the row in doubt: its last
 * part may have reached Slack, so the sender looks for it before posting again.
 */
export function planClaim(
  snapshot: OutboxSnapshot,
  lease: Lease,
  takeOverFrom: string | undefined,
  at: number,
): OutboxPlan {
  const { row } = snapshot;
  if (row.status !== 'pending' || row.nextAttemptAt > at) return refused;
  const held = row.claim !== null && row.claim.expiresAt >= at && row.claim.owner !== takeOverFrom;
  if (held) return refused;
  const token = snapshot.claimToken + 1;
  return transition(snapshot, {
    claim: { owner: lease.owner, token, expiresAt: at + lease.durationMs },
    claimToken: token,
    attempts: row.attempts + 1,
    inDoubt: row.claim !== null || row.inDoubt,
  });
}

/** Records the parts sent so far and extends the claim, so a long answer keeps it. */
export function planProgress(
  snapshot: OutboxSnapshot,
  claim: ClaimToken,
  progress: DeliveryProgress,
  extendByMs: number,
  at: number,
): OutboxPlan {
  const held = heldClaim(snapshot, claim);
  if (!held) return refused;
  return transition(snapshot, { progress, claim: { ...held, expiresAt: at + extendByMs } }, claim);
}

/**
 * A row delivered. A posted approval card (the thread's, or a copy in an approver's DM) is one of its
 * request's cards from this commit on; a plan's card is a card of every request it lists.
 */
export function planComplete(snapshot: OutboxSnapshot, delivery: CompletedDelivery, at: number): OutboxPlan {
  if (!heldClaim(snapshot, delivery.claim)) return refused;
  const { message } = snapshot.row;
  const requestIds =
    message.type === 'approval-card' || message.type === 'approver-copy'
      ? [message.requestId]
      : message.type === 'approval-plan'
        ? message.requestIds
        : [];
  const cards = requestIds.flatMap((requestId) =>
    delivery.progress.sent.map((part) => ({ channel: part.channel, ts: part.ts, requestId })),
  );
  return transition(snapshot, finished('sent', delivery.progress, null, at), delivery.claim, { cards });
}

/**
 * Hands the row back to be tried at `nextAttemptAt`; its claim ends. `inDoubt`: the part being sent may
 * have landed, so the next attempt looks for it first. `waited`: Slack only asked to wait, so this attempt
 * does not count towards giving up.
 */
export function planRetry(
  snapshot: OutboxSnapshot,
  claim: ClaimToken,
  retry: { nextAttemptAt: number; error: string; inDoubt?: boolean; waited?: boolean },
): OutboxPlan {
  if (!heldClaim(snapshot, claim)) return refused;
  return transition(
    snapshot,
    {
      claim: null,
      inDoubt: retry.inDoubt === true,
      nextAttemptAt: retry.nextAttemptAt,
      lastError: retry.error,
      attempts: snapshot.row.attempts - (retry.waited ? 1 : 0),
    },
    claim,
  );
}

/**
 * The row can never be delivered: it is marked failed, an audit event says why, and `notify` (a notice
 * to a person) is written in the same commit.
 */
export function planGiveUp(
  snapshot: OutboxSnapshot,
  claim: ClaimToken,
  failure: { error: string; notify?: readonly NewOutboxEntry[] },
  at: number,
): OutboxPlan {
  if (!heldClaim(snapshot, claim)) return refused;
  const { row } = snapshot;
  return transition(snapshot, finished('failed', row.progress, failure.error, at), claim, {
    audit: [
      {
        actor: 'holdfast',
        kind: 'delivery.failed',
        approvalId: row.requestId,
        conversationId: row.conversationId,
        data: { key: row.key, error: failure.error, turnId: row.turnId },
      },
    ],
    insert: planOutboxWrite(failure.notify ?? [], at),
  });
}

/** The claim on the row, when it is still the caller's (the same owner and token, the row pending). */
function heldClaim(snapshot: OutboxSnapshot, claim: ClaimToken): OutboxClaim | undefined {
  const { row } = snapshot;
  const ours =
    row.status === 'pending' && row.claim?.owner === claim.owner && snapshot.claimToken === claim.token;
  return ours ? (row.claim ?? undefined) : undefined;
}

function finished(
  status: OutboxStatus,
  progress: DeliveryProgress,
  lastError: string | null,
  at: number,
): Partial<OutboxRowState> {
  return { status, progress, claim: null, inDoubt: false, lastError, finishedAt: at };
}

function transition(
  snapshot: OutboxSnapshot,
  changes: Partial<OutboxRowState>,
  fence: ClaimToken | undefined = undefined,
  more: Partial<Omit<OutboxWrites, 'update'>> = {},
): OutboxPlan {
  const { row } = snapshot;
  const set: OutboxRowState = {
    status: row.status,
    claim: row.claim,
    claimToken: snapshot.claimToken,
    attempts: row.attempts,
    inDoubt: row.inDoubt,
    nextAttemptAt: row.nextAttemptAt,
    progress: row.progress,
    lastError: row.lastError,
    finishedAt: null,
    ...changes,
  };
  return {
    type: 'planned',
    writes: {
      update: {
        id: row.id,
        fence: fence ?? { owner: row.claim?.owner ?? null, token: snapshot.claimToken },
        set,
      },
      cards: more.cards ?? [],
      audit: more.audit ?? [],
      insert: more.insert ?? [],
    },
    row: {
      ...row,
      status: set.status,
      claim: set.claim,
      attempts: set.attempts,
      inDoubt: set.inDoubt,
      nextAttemptAt: set.nextAttemptAt,
      progress: set.progress,
      lastError: set.lastError,
    },
  };
}
