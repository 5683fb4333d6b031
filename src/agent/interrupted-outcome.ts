import type { Logger } from 'pino';
import type { Turn } from '../store/records.js';
import type { ClaimedTurn, Store } from '../store/store.js';
import { LeaseLostError } from '../store/store-errors.js';
import { TurnAbortedError, TurnStoppedError } from './agent-errors.js';
import type { TurnOutcome } from './turn-outcome.js';

/**
 * What a run cut short comes to: someone pressed Stop, another process took the turn, or this one is
 * shutting down. Undefined when nothing cut it short and `error` is a failure of the turn itself. The
 * caller catches `ApprovalPending` before this (invariant 2): a suspension is never an interruption.
 */
export async function interruptedOutcome(
  error: unknown,
  signal: AbortSignal,
  run: {
    readonly store: Store;
    readonly claim: ClaimedTurn;
    readonly log: Logger;
    readonly reload: () => Promise<Turn>;
  },
): Promise<TurnOutcome | undefined> {
  const { store, log } = run;
  const { turn, fence } = run.claim;
  const stopped = signal.aborted ? signal.reason : undefined;
  if (stopped instanceof TurnStoppedError) {
    // Ended on disk by whoever stopped it (with its notice); nothing more is written here.
    log.info({ stoppedBy: stopped.stoppedBy }, 'turn stopped');
    return {
      type: 'failed',
      turn: await run.reload(),
      error: { code: stopped.code, message: stopped.message },
    };
  }
  if (error instanceof LeaseLostError || stopped instanceof LeaseLostError) {
    // Another process owns the turn now; this one writes nothing more for it (invariant 6).
    log.warn('lease lost; another process owns this turn now');
    return { type: 'interrupted', turn, reason: 'lease lost' };
  }
  if (error instanceof TurnAbortedError || stopped instanceof TurnAbortedError) {
    await store.turns.release(fence).catch((releaseError: unknown) => {
      log.warn({ err: releaseError }, 'could not release the turn; its lease will lapse');
    });
    return { type: 'interrupted', turn, reason: 'shutting down' };
  }
  return undefined;
}
