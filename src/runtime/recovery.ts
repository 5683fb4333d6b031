import type { Logger } from 'pino';
import type { Store } from '../store/store.js';
import type { TurnObserver } from './turn-observer.js';
import type { TurnScheduler } from './turn-scheduler.js';

export interface RecoveryDeps {
  readonly store: Store;
  readonly scheduler: TurnScheduler;
  readonly observer: TurnObserver;
  readonly logger: Logger;
}

export interface RecoveryReport {
  readonly expired: number;
  readonly cardsPosted: number;
  readonly resumed: number;
  readonly rerun: number;
  readonly started: number;
  readonly answersDelivered: number;
}

/**
 * Boot recovery and the periodic sweep (DESIGN §4): everything a dead or busy process left half done is
 * found from the store alone and handed to the scheduler, which does nothing twice because every turn
 * step is claimed through the store.
 */
export async function recoverTurns(deps: RecoveryDeps): Promise<RecoveryReport> {
  const { store, scheduler, observer, logger } = deps;
  const expired = await store.approvals.expireOverdue();
  for (const approval of expired) await safely(() => observer.approvalExpired(approval), logger);
  const cardless = await store.approvals.withoutCard();
  for (const approval of cardless) await safely(() => observer.approvalNeedsCard(approval), logger);
  const recoverable = await store.turns.recoverable();
  for (const turn of recoverable.decidedAwaiting) void scheduler.resume(turn.conversationId, turn.id);
  for (const turn of recoverable.staleRunning) void scheduler.recover(turn.conversationId, turn.id);
  for (const turn of recoverable.queued) void scheduler.drain(turn.conversationId);
  for (const turn of recoverable.unpostedAnswers)
    await safely(() => observer.answerNeedsDelivery(turn), logger);
  const report: RecoveryReport = {
    expired: expired.length,
    cardsPosted: cardless.length,
    resumed: recoverable.decidedAwaiting.length,
    rerun: recoverable.staleRunning.length,
    started: recoverable.queued.length,
    answersDelivered: recoverable.unpostedAnswers.length,
  };
  if (Object.values(report).some((count) => count > 0)) logger.info(report, 'recovery sweep');
  return report;
}

async function safely(work: () => Promise<void>, logger: Logger): Promise<void> {
  try {
    await work();
  } catch (error) {
    logger.warn({ err: error }, 'recovery step failed; the next sweep retries it');
  }
}

export interface SweepTimer {
  setInterval(callback: () => void, ms: number): { unref?: () => void };
  clearInterval(handle: unknown): void;
}

/** Runs `recoverTurns` every `intervalMs`, never two at once. */
export function startSweep(
  deps: RecoveryDeps,
  intervalMs: number,
  timer: SweepTimer = globalThis,
): () => void {
  let running = false;
  const handle = timer.setInterval(() => {
    if (running) return;
    running = true;
    recoverTurns(deps)
      .catch((error: unknown) => deps.logger.error({ err: error }, 'recovery sweep failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  handle.unref?.();
  return () => timer.clearInterval(handle);
}
