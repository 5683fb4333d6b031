import type { KvSnapshot } from '../kv-snapshot.js';
import type { Effects } from '../ports/outbox-store.js';
import type { ClaimOptions, Fence, Lease } from '../ports/turn-claim.js';
import type { SuspendBatch, TurnFailure } from '../ports/turn-store.js';
import type { Turn } from '../records.js';
import { type ClaimMode, decideClaim } from './claim-turn.js';
import { checkHolder, noWrites, type TurnHolder, type TurnWrites } from './turn-writes.js';

/** What a claim reads inside its transaction: the turn and the facts `decideClaim` needs. */
export interface ClaimSnapshot {
  readonly turn: Turn;
  readonly blockedByEarlier: boolean;
  readonly pendingApprovals: number;
}

export type ClaimPlan =
  | { readonly type: 'refuse'; readonly reason: string }
  | { readonly type: 'take'; readonly mode: ClaimMode; readonly writes: TurnWrites };

/**
 * Takes a turn: who may take it is `decideClaim`; taking it is the lease on the turn's row, guarded by the
 * state read, and, for a turn that starts, its user message joining the transcript.
 */
export function planClaim(
  snapshot: ClaimSnapshot,
  lease: Lease,
  options: ClaimOptions,
  at: number,
): ClaimPlan {
  const { turn } = snapshot;
  const decision = decideClaim(turn, {
    now: at,
    blockedByEarlier: snapshot.blockedByEarlier,
    pendingApprovals: snapshot.pendingApprovals,
    takeOverFrom: options.takeOverFrom,
  });
  if (decision.type === 'refuse') return decision;
  return { type: 'take', mode: decision.mode, writes: takeWrites(turn, turn.id, decision.mode, lease, at) };
}

/** What taking a turn writes: the lease, guarded by the state read, and a starting turn's user message. */
export function takeWrites(
  turn: Pick<Turn, 'conversationId' | 'status' | 'leaseToken' | 'inputText'>,
  turnId: string,
  mode: ClaimMode,
  lease: Lease,
  at: number,
): TurnWrites {
  return {
    ...noWrites(turnId, turn.conversationId),
    change: {
      type: 'take',
      owner: lease.owner,
      expiresAt: at + lease.durationMs,
      from: { status: turn.status, leaseToken: turn.leaseToken },
    },
    messages:
      mode === 'start'
        ? [{ transcriptId: turn.conversationId, message: { role: 'user', content: turn.inputText } }]
        : [],
  };
}

/** Ends a running turn: its answer in the transcript, its kv kept on the thread, the turn completed. */
export function planComplete(
  holder: TurnHolder | undefined,
  fence: Fence,
  result: { readonly answer: string; readonly kv: KvSnapshot },
  effects: Effects = {},
): TurnWrites {
  const { conversationId } = checkHolder(holder, fence);
  return {
    ...noWrites(fence.turnId, conversationId),
    change: { type: 'end', status: 'completed', error: null },
    messages: [{ transcriptId: conversationId, message: { role: 'assistant', content: result.answer } }],
    kv: JSON.stringify(result.kv),
    outbox: effects.outbox ?? [],
    finished: true,
  };
}

/**
 * Parks a running turn on its requests: the batch's assistant message (when not on disk yet), the
 * requests, the restarted call's ledger entry gone, the kv snapshot, the status, the cards, in one commit.
 */
export function planSuspend(
  holder: TurnHolder | undefined,
  fence: Fence,
  kv: KvSnapshot,
  effects: Effects = {},
  batch?: SuspendBatch,
): TurnWrites {
  const { conversationId } = checkHolder(holder, fence);
  return {
    ...noWrites(fence.turnId, conversationId),
    change: { type: 'end', status: 'awaiting_approval', error: null },
    messages: batch?.message ? [{ transcriptId: batch.transcriptId, message: batch.message }] : [],
    approvals: batch?.approvals ?? [],
    forgetStart: batch?.restartCall,
    // Invariant 5: the kv snapshot commits with the status change, so a resume anywhere restores it. It
    // goes on the newest request, decided or not: one decided from the inbox before this commit still
    // carries the turn's kv.
    kvSnapshot: JSON.stringify(kv),
    // Decided already (from the inbox, while the turn was still running): ready to resume at once.
    markReady: true,
    outbox: effects.outbox ?? [],
    outboxFor: batch?.outboxFor,
  };
}

/**
 * Ends a turn as failed. Fenced, only by its holder; unfenced (an operator or a sweep), whatever unfinished
 * state it is in, and a turn that ended already is left as it is (undefined: nothing to write).
 */
export function planFail(
  holder: TurnHolder | undefined,
  target: Fence | { readonly turnId: string },
  error: TurnFailure,
  effects: Effects = {},
): TurnWrites | undefined {
  let conversationId: string;
  if ('token' in target) conversationId = checkHolder(holder, target).conversationId;
  else if (holder !== undefined && unfinished.has(holder.status)) conversationId = holder.conversationId;
  else return undefined;
  return {
    ...noWrites(target.turnId, conversationId),
    change: { type: 'end', status: 'failed', error },
    outbox: effects.outbox ?? [],
    finished: true,
  };
}

const unfinished = new Set<string>(['queued', 'running', 'awaiting_approval']);
