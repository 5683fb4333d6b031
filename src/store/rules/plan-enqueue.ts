import type { Lease } from '../ports/turn-claim.js';
import type { EnqueueResult, NewTurn } from '../ports/turn-store.js';
import type { Turn } from '../records.js';
import { type AdmissionLimits, admitTurn } from './admit-turn.js';
import { decideClaim } from './claim-turn.js';
import { takeWrites } from './plan-turn.js';
import { type AppliedTurnWrites, noWrites, type TurnWrites } from './turn-writes.js';

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
