import type { Logger } from 'pino';
import type { Fence, Store } from '../store/store.js';
import { LeaseLostError } from '../store/store-errors.js';

export interface TurnLeaseOptions {
  readonly store: Store;
  readonly fence: Fence;
  readonly leaseMs: number;
  readonly logger: Logger;
  /** Called once, when another process has taken the turn: everything running for it must stop. */
  readonly onLost: (error: LeaseLostError) => void;
}

/**
 * Keeps a running turn's lease alive on a timer, whatever the turn is waiting on (a model call, a
 * minute-long command), so leases can be short and a dead process's turn is picked up within seconds.
 */
export class TurnLease {
  readonly #options: TurnLeaseOptions;
  #timer: NodeJS.Timeout | undefined;
  #lost: LeaseLostError | undefined;
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
      this.#lost = new LeaseLostError(fence.turnId);
      this.stop();
      logger.warn({ turnId: fence.turnId }, 'lease lost: another process took this turn over');
      this.#options.onLost(this.#lost);
    } catch (error) {
      // The store is briefly unavailable; the next tick tries again, and the fence guards every write.
      logger.warn({ err: error, turnId: fence.turnId }, 'could not renew the turn lease');
    } finally {
      this.#renewing = false;
    }
  }
}
