import type { Logger } from 'pino';
import type { OutboxWorker } from '../outbox/outbox-worker.js';
import { leaseLapsed } from '../store/rules/claim-turn.js';
import type { Store } from '../store/store.js';
import type { InboundQueue } from './inbound-queue.js';
import type { ProcessIdentity } from './process-identity.js';
import type { TurnScheduler } from './turn-scheduler.js';

export interface RecoveryDeps {
  readonly store: Store;
  readonly scheduler: TurnScheduler;
  readonly outbox: OutboxWorker | undefined;
  readonly identity: ProcessIdentity;
  readonly logger: Logger;
  readonly now: () => number;
  /** Writes the reminders and escalations that are due (see `createApproverNudger`). */
  readonly nudge?: () => Promise<number>;
  /** Messages acknowledged and not yet turns (see `InboundQueue`). */
  readonly inbound?: InboundQueue;
  /** Aborted when the process stops: work left (the next expiry batch) is left to the next process. */
  readonly stopping?: AbortSignal;
  /** Hears of work the sweep leaves running when it returns (boot's expiry), so shutdown can wait for it. */
  readonly background?: (work: Promise<unknown>) => void;
}

export interface RecoveryReport {
  readonly expired: number;
  readonly resumed: number;
  readonly rerun: number;
  readonly takenOver: number;
  readonly started: number;
  readonly deliveries: number;
  readonly nudged: number;
  /** Acknowledged messages a process left before they became turns, queued again. */
  readonly received: number;
}

/** Expiries are committed in batches this size, so a backlog never holds the write lock for long. */
const expiryBatch = 200;

/**
 * Boot recovery and the periodic sweep (DESIGN §4): everything a dead or busy process left half done is
 * found from the store alone and handed to the scheduler or the outbox worker, which do nothing twice
 * because every step is claimed through the store. Every query here reads what is open, not history.
 */
export async function recoverTurns(
  deps: RecoveryDeps,
  options: {
    readonly expiry?: 'now' | 'background';
    /** Messages kept longer ago than this are taken over; at boot 0: no live process of ours holds any. */
    readonly inboundOlderThanMs?: number;
  } = {},
): Promise<RecoveryReport> {
  const { store, scheduler, outbox, identity, logger } = deps;
  // At boot, a backlog of overdue requests is expired after start-up, not before it: a process with ten
  // thousand of them is serving in well under a second, and they expire in batches meanwhile.
  const expiring = expireAll(deps);
  if (options.expiry === 'background') {
    deps.background?.(
      expiring.catch((error: unknown) => logger.error({ err: error }, 'expiring overdue requests failed')),
    );
  }
  const expired = options.expiry === 'background' ? 0 : await expiring;
  const recoverable = await store.turns.recoverable();
  for (const turn of recoverable.decidedAwaiting) void scheduler.resume(turn.conversationId, turn.id);
  let rerun = 0;
  let takenOver = 0;
  for (const turn of recoverable.running) {
    if (leaseLapsed(turn, deps.now())) {
      rerun += 1;
      void scheduler.recover(turn.conversationId, turn.id);
    } else if (turn.leaseOwner !== null && identity.ownerGone(turn.leaseOwner)) {
      // The process that held it died on this host: take it now rather than wait for the lease to lapse.
      takenOver += 1;
      logger.info({ turnId: turn.id, from: turn.leaseOwner }, 'taking over a turn whose process is gone');
      void scheduler.recover(turn.conversationId, turn.id, turn.leaseOwner);
    }
  }
  for (const turn of recoverable.queued) void scheduler.drain(turn.conversationId);
  // A request overdue by now (still being expired in the background at boot) is never nudged.
  const nudged = (await deps.nudge?.()) ?? 0;
  const deliveries = (await outbox?.sweep()) ?? 0;
  const received = (await deps.inbound?.sweep(options.inboundOlderThanMs)) ?? 0;
  const report: RecoveryReport = {
    expired,
    resumed: recoverable.decidedAwaiting.length,
    rerun,
    takenOver,
    started: recoverable.queued.length,
    deliveries,
    nudged,
    received,
  };
  if (Object.values(report).some((count) => count > 0)) logger.info(report, 'recovery sweep');
  return report;
}

async function expireAll(deps: RecoveryDeps): Promise<number> {
  let expired = 0;
  for (;;) {
    const batch = await deps.store.approvals.expireOverdue(expiryBatch);
    expired += batch.length;
    for (const approval of batch) deps.outbox?.kick(approval.conversationId);
    // A turn whose last request just expired resumes; the model is told it timed out.
    for (const turnId of new Set(batch.map((approval) => approval.turnId))) {
      const turn = await deps.store.turns.get(turnId);
      if (turn?.status === 'awaiting_approval') void deps.scheduler.resume(turn.conversationId, turn.id);
    }
    if (batch.length < expiryBatch || deps.stopping?.aborted) return expired;
    await new Promise<void>((resolve) => setImmediate(resolve)); // let clicks and events in between
  }
}

export interface SweepTimer {
  setInterval(callback: () => void, ms: number): { unref?: () => void };
  clearInterval(handle: unknown): void;
}

/**
 * Runs `recoverTurns` every `intervalMs`, never two at once. The function it returns stops the timer
 * and resolves once a sweep already under way has finished: the store must not close under it.
 */
export function startSweep(
  deps: RecoveryDeps,
  intervalMs: number,
  timer: SweepTimer = globalThis,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  let stopped = false;
  const handle = timer.setInterval(() => {
    if (running || stopped) return;
    running = recoverTurns(deps)
      .then(
        () => undefined,
        (error: unknown) => deps.logger.error({ err: error }, 'recovery sweep failed'),
      )
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  handle.unref?.();
  return async () => {
    stopped = true;
    timer.clearInterval(handle);
    await running;
  };
}
