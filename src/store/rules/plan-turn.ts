import type { KvSnapshot } from '../kv-snapshot.js';
import type { Effects } from '../ports/outbox-store.js';
import type { ClaimOptions, Fence, Lease } from '../ports/turn-claim.js';
import type { EnqueueResult, NewTurn, SuspendBatch, TurnFailure } from '../ports/turn-store.js';
import type { Turn } from '../records.js';
import { type AdmissionLimits, admitTurn } from './admit-turn.js';
import { type ClaimMode, decideClaim } from './claim-turn.js';
import {
  type AppliedTurnWrites,
  checkHolder,
  noWrites,
  type TurnHolder,
  type TurnWrites,
} from './turn-writes.js';

/** What `enqueue` reads under the thread's lock before it writes. */
export interface EnqueueSnapshot {
  /** The turn made from the same message already, if any. */
  readonly duplicate?: Turn;
  /** Unfinished turns of the thread, counted up to `countLimits` only. */
  readonly unfinishedInThread: number;
  /** Unfinished turns of the person, counted up to `countLimits` only. */
  readonly unfinishedByUser: number;
}

/**
 * How far `enqueue` counts unfinished work: up to the limits (a backlog of thousands costs no more than
 * the limit to check), and one in the thread when the turn may start at once (is the thread idle?).
 */
export function countLimits(lease: Lease | undefined, limits: AdmissionLimits | undefined) {
  return { inThread: Math.max(limits?.perThread ?? 0, lease ? 1 : 0), byUser: limits?.perUser ?? 0 };
}

export type EnqueuePlan =
  | { readonly type: 'duplicate'; readonly turn: Turn; readonly writes: TurnWrites }
  | {
      readonly type: 'refused';
      readonly reason: 'thread-busy' | 'user-busy';
      readonly unfinished: number;
      readonly writes: TurnWrites;
    }
  /** `start` when the turn is taken in the same commit: the thread was idle and a lease was offered. */
  | { readonly type: 'enqueue'; readonly writes: TurnWrites; readonly start?: Lease };

/**
 * A message becomes a turn once: the kept message leaves the store whatever the outcome, a message made
 * into a turn already is a duplicate, too much unfinished work is refused, and a turn in an idle thread
 * starts in the same commit when a lease is offered (it saves a transaction on the hot path; a busy thread
 * leaves it queued for the scheduler).
 */
export function planEnqueue(
  snapshot: EnqueueSnapshot,
  turn: NewTurn,
  conversationId: string,
  options: { readonly lease?: Lease; readonly limits?: AdmissionLimits; readonly at: number },
): EnqueuePlan {
  const settled: TurnWrites = { ...noWrites(turn.turnId, conversationId), settleInbound: turn.inboundKey };
  if (snapshot.duplicate) return { type: 'duplicate', turn: snapshot.duplicate, writes: settled };
  if (options.limits) {
    const admission = admitTurn(
      { inThread: snapshot.unfinishedInThread, byUser: snapshot.unfinishedByUser },
      options.limits,
    );
    if (admission.type === 'refuse') return { ...admission, type: 'refused', writes: settled };
  }
  const insert = {
    conversationId,
    turnId: turn.turnId,
    teamId: turn.teamId,
    channelId: turn.channelId,
    threadTs: turn.threadTs,
    triggerKey: turn.triggerKey,
    triggerTs: turn.triggerTs,
    requestedBy: turn.requestedBy,
    inputText: turn.inputText,
  };
  const queued = { ...settled, insert };
  const { lease } = options;
  if (!lease) return { type: 'enqueue', writes: queued };
  // Every unfinished turn of the thread is earlier than this one: the thread is idle or it waits.
  const decision = decideClaim(
    { status: 'queued', leaseOwner: null, leaseExpiresAt: null },
    { now: options.at, blockedByEarlier: snapshot.unfinishedInThread > 0, pendingApprovals: 0 },
  );
  if (decision.type === 'refuse') return { type: 'enqueue', writes: queued };
  // Taken from the row just inserted: queued, with the schema's first token.
  const start = takeWrites(
    { conversationId, status: 'queued', leaseToken: 0, inputText: turn.inputText },
    turn.turnId,
    'start',
    lease,
    options.at,
  );
  return {
    type: 'enqueue',
    writes: { ...queued, change: start.change, messages: start.messages },
    start: lease,
  };
}

/**
 * What `enqueue` answers once its writes are applied; `raced` when another insert of the same message won
 * after the snapshot was read (the store reads that turn and answers it as a duplicate).
 */
export function enqueueOutcome(
  plan: EnqueuePlan,
  applied: AppliedTurnWrites,
): EnqueueResult | { type: 'raced' } {
  if (plan.type === 'duplicate') return { type: 'duplicate', turn: plan.turn };
  if (plan.type === 'refused') return { type: 'refused', reason: plan.reason, unfinished: plan.unfinished };
  if (applied.type === 'duplicate') return { type: 'raced' };
  const { turn, conversation } = applied.type === 'applied' ? applied : {};
  if (!turn || !conversation)
    throw new Error(`turn ${plan.writes.turnId} vanished inside its own transaction`);
  const claim = plan.start
    ? {
        type: 'claimed' as const,
        turn,
        mode: 'start' as const,
        fence: { turnId: turn.id, owner: plan.start.owner, token: turn.leaseToken },
        conversation,
      }
    : undefined;
  return { type: 'enqueued', turn, conversation, claim };
}

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

function takeWrites(
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
    deliverAs: effects.deliverAs,
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
    deliverAs: effects.deliverAs,
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
    deliverAs: effects.deliverAs,
    finished: true,
  };
}

const unfinished = new Set<string>(['queued', 'running', 'awaiting_approval']);
