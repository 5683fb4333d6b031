import type { Logger } from 'pino';
import type { Fence, Store } from '../store/store.js';
import { LeaseLostError } from '../store/store-errors.js';
import { TurnStoppedError } from './agent-errors.js';

export interface TurnLeaseOptions {
  readonly store: Store;
  readonly fence: Fence;
  readonly leaseMs: number;
  readonly logger: Logger;
  /**
   * Called once, when the turn is no longer this process's: another process took it (LeaseLostError), or
   * someone stopped it, maybe through another process (TurnStoppedError). Everything running for it must
   * stop.
   */
  readonly onLost: (error: LeaseLostError | TurnStoppedError) => void;
}

/**
 * Keeps a running turn's lease alive on a timer, whatever the turn is waiting on (a model call, a
 * minute-long command), so leases can be short and a dead process's turn is picked up within seconds.
 */
export class TurnLease {
  readonly #options: TurnLeaseOptions;
  #timer: NodeJS.Timeout | undefined;
  #lost: LeaseLostError | TurnStoppedError | undefined;
  #renewing = false;

  constructor(options: TurnLeaseOptions) {
    this.#options = options;
  }

  start(): void {
    // A third of the lease: two renewals can fail (a slow disk, a busy lock) before the lease lapses.
    this.#timer = setInterval(() => void this.#renew(), Math.max(50, Math.floor(this.#options.leaseMs / 3)));
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Looks at the lease now rather than at the next tick: another replica said the turn ended there (it was
   * stopped), and the stop is carried out here within moments instead of within a renewal period.
   */
  checkNow(): void {
    void this.#renew();
  }

  /** Throws once the lease is known to be lost, so no new step (a model call) starts on a lost turn. */
  assertHeld(): void {
    if (this.#lost) throw this.#lost;
  }

  async #renew(): Promise<void> {
    if (this.#renewing || this.#lost) return;
    this.#renewing = true;
    const { store, fence, leaseMs, logger } = this.#options;
    try {
      if (await store.turns.renewLease(fence, leaseMs)) return;
      // A turn stopped on disk (by a process that does not run it) renews no more either: it is the stop
      // that this process must carry out, not a takeover.
      const stoppedBy = stopperOf(await store.turns.get(fence.turnId).catch(() => undefined));
      this.#lost = stoppedBy ? new TurnStoppedError(stoppedBy) : new LeaseLostError(fence.turnId);
      this.stop();
      if (stoppedBy) logger.info({ turnId: fence.turnId, stoppedBy }, 'the turn was stopped elsewhere');
      else logger.warn({ turnId: fence.turnId }, 'lease lost: another process took this turn over');
      this.#options.onLost(this.#lost);
    } catch (error) {
      // The store is briefly unavailable; the next tick tries again, and the fence guards every write.
      logger.warn({ err: error, turnId: fence.turnId }, 'could not renew the turn lease');
    } finally {
      this.#renewing = false;
    }
  }
}

/**
 * Who stopped a turn, as `stopTurn` recorded it; undefined when it did not end that way. A turn stopped by a
 * release that kept no stopper (schema 9 or older) is still a stop, by someone unnamed.
 */
function stopperOf(
  turn: { status: string; errorCode: string | null; stoppedBy: string | null } | undefined,
): string | undefined {
  if (turn?.status !== 'failed' || turn.errorCode !== TurnStoppedError.code) return undefined;
  return turn.stoppedBy ?? 'someone';
}
