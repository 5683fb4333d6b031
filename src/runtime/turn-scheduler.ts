import PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { TurnOutcome, TurnRunner } from '../agent/turn-runner.js';
import type { Turn } from '../store/records.js';
import type { ClaimedTurn, Store } from '../store/store.js';
import { type LoadPressure, nextConcurrency } from './load-pressure.js';
import type { TurnObserver } from './turn-observer.js';
import { waitAtMost } from './wait-at-most.js';

export interface TurnSchedulerOptions {
  readonly store: Store;
  readonly runner: TurnRunner;
  readonly observer: TurnObserver;
  readonly logger: Logger;
  /** Turns running at once across all conversations (model calls and tools are the cost). */
  readonly maxConcurrentTurns?: number;
  /**
   * When given, the limit adapts to it: fewer turns run at once while the event loop lags, so Slack's
   * acknowledgements and clicks keep their three seconds under a burst (the turns wait on disk). The
   * limit then starts at the floor, grows as `nextConcurrency` says, and returns to the floor after
   * `restartAfterIdleMs` with nothing to run.
   */
  readonly pressure?: LoadPressure;
}

/** Turns that always may run, however far behind the process is: a burst must not stall every thread. */
const leastConcurrentTurns = 2;
const adaptEveryMs = 250;
/** A process with no turn running or waiting this long starts over from the floor. */
export const restartAfterIdleMs = 30_000;

/**
 * Serialises work per conversation (one p-queue of concurrency 1 each) under a global limit. Queues hold
 * only "look at this conversation" tasks; what to do is always read from the store, so a lost task
 * costs nothing that the sweep will not redo.
 */
export class TurnScheduler {
  readonly #options: TurnSchedulerOptions;
  readonly #global: PQueue;
  readonly #conversations = new Map<string, PQueue>();
  readonly #shutdown = new AbortController();
  /** Turns claimed for this process (by enqueue or a click) whose work has not started yet. */
  readonly #heldClaims = new Map<string, ClaimedTurn>();
  readonly #adapting: NodeJS.Timeout | undefined;

  constructor(options: TurnSchedulerOptions) {
    this.#options = options;
    const max = options.maxConcurrentTurns ?? 8;
    const { pressure } = options;
    const limits = { min: Math.min(max, leastConcurrentTurns), max };
    this.#global = new PQueue({ concurrency: pressure ? limits.min : max });
    if (pressure) {
      let slowStart = true;
      let idleWindows = 0;
      this.#adapting = setInterval(() => {
        const queue = this.#global;
        idleWindows = queue.size === 0 && queue.pending === 0 ? idleWindows + 1 : 0;
        if (idleWindows * adaptEveryMs >= restartAfterIdleMs) {
          // As TCP after an idle spell: what the limit learned no longer says what the process can take
          // now, so the next burst meets the floor and a fresh slow start, not every allowed turn at once.
          queue.concurrency = limits.min;
          slowStart = true;
          return;
        }
        const saturated = queue.size > 0 || queue.pending >= queue.concurrency;
        queue.concurrency = nextConcurrency(
          queue.concurrency,
          { lagMs: pressure.lagMs(), saturated },
          { ...limits, slowStart },
        );
        if (pressure.busy()) slowStart = false;
      }, adaptEveryMs);
      this.#adapting.unref();
    }
  }

  /** Turns allowed to run at once right now (below the configured limit while the process lags). */
  get concurrency(): number {
    return this.#global.concurrency;
  }

  /** Runs whatever the conversation has queued, oldest first, until it is empty or waits on a human. */
  drain(conversationId: string): Promise<void> {
    return this.#enqueue(conversationId, async () => {
      await this.#drainNow(conversationId);
    });
  }

  /** Resumes a turn whose approvals are all decided, then carries on with the conversation's queue. */
  resume(conversationId: string, turnId: string): Promise<void> {
    return this.#enqueue(conversationId, async () => {
      const outcome = await this.#runOne(turnId, 'resume');
      if (outcome.type === 'completed' || outcome.type === 'failed') await this.#drainNow(conversationId);
    });
  }

  /** Drives a turn already claimed for this process (by enqueue or by the deciding click). */
  runClaimed(claim: ClaimedTurn): Promise<void> {
    const conversationId = claim.turn.conversationId;
    this.#heldClaims.set(claim.turn.id, claim);
    return this.#enqueue(conversationId, async () => {
      if (!this.#heldClaims.delete(claim.turn.id)) return;
      const outcome = await this.#runOne(claim.turn.id, claim);
      if (outcome.type === 'completed' || outcome.type === 'failed') await this.#drainNow(conversationId);
    });
  }

  /**
   * Re-runs a turn left `running` by a process that is gone (its transcript says where it stopped);
   * `takeOverFrom` names a dead owner whose lease has not lapsed yet.
   */
  recover(conversationId: string, turnId: string, takeOverFrom?: string): Promise<void> {
    return this.#enqueue(conversationId, async () => {
      const outcome = await this.#runOne(turnId, { takeOverFrom });
      if (outcome.type === 'completed' || outcome.type === 'failed') await this.#drainNow(conversationId);
    });
  }

  /** Resolves when no conversation has work queued or running. */
  async idle(): Promise<void> {
    while (this.#global.size > 0 || this.#global.pending > 0 || this.#conversations.size > 0) {
      await Promise.all([
        this.#global.onIdle(),
        ...[...this.#conversations.values()].map((queue) => queue.onIdle()),
      ]);
    }
  }

  get activeConversations(): number {
    return this.#conversations.size;
  }

  /**
   * Stops taking work and asks running turns to stop at their next step; turns that do not finish in
   * time keep their rows and are recovered by the next process.
   */
  async shutdown(graceMs: number): Promise<void> {
    clearInterval(this.#adapting);
    for (const queue of this.#conversations.values()) queue.clear();
    this.#global.clear();
    this.#shutdown.abort();
    // Claimed but never started: hand them back now, so the next process takes them without waiting.
    const held = [...this.#heldClaims.values()];
    this.#heldClaims.clear();
    for (const claim of held) {
      await this.#options.store.turns.release(claim.fence).catch((error: unknown) => {
        this.#options.logger.warn({ err: error, turnId: claim.turn.id }, 'could not release a claimed turn');
      });
    }
    await waitAtMost(this.idle(), graceMs);
  }

  #enqueue(conversationId: string, work: () => Promise<void>): Promise<void> {
    if (this.#shutdown.signal.aborted) return Promise.resolve();
    let queue = this.#conversations.get(conversationId);
    if (!queue) {
      const created = new PQueue({ concurrency: 1 });
      // Idle queues are dropped so that 10,000 quiet threads cost no memory.
      created.on('idle', () => {
        if (
          this.#conversations.get(conversationId) === created &&
          created.size === 0 &&
          created.pending === 0
        ) {
          this.#conversations.delete(conversationId);
        }
      });
      this.#conversations.set(conversationId, created);
      queue = created;
    }
    return queue.add(() => this.#global.add(() => this.#guard(conversationId, work)));
  }

  async #guard(conversationId: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      // A store or observer failure must not kill the queue; the sweep retries from the store.
      this.#options.logger.error({ err: error, conversationId }, 'scheduled work failed');
    }
  }

  async #drainNow(conversationId: string): Promise<void> {
    for (;;) {
      if (this.#shutdown.signal.aborted) return;
      const next = await this.#options.store.turns.nextRunnable(conversationId);
      if (!next) return;
      const outcome = await this.#runOne(next.id, 'run');
      if (outcome.type !== 'completed' && outcome.type !== 'failed') return;
    }
  }

  async #runOne(
    turnId: string,
    how: 'run' | 'resume' | ClaimedTurn | { takeOverFrom?: string },
  ): Promise<TurnOutcome> {
    const { store, runner, observer, logger } = this.#options;
    const signal = this.#shutdown.signal;
    const claimed = typeof how === 'object' && 'fence' in how ? how : undefined;
    const turn = claimed ? claimed.turn : await store.turns.get(turnId);
    // The observer is shown the turn as it stood before this claim: a click's was `awaiting_approval` a
    // moment ago, a new message's `queued`; one still `running` was left by a process that died, and what
    // that process showed may still be up.
    const before: Turn['status'] | undefined =
      claimed?.mode === 'resume' ? 'awaiting_approval' : claimed?.mode === 'start' ? 'queued' : undefined;
    const shown: Turn | undefined = before && turn ? { ...turn, status: before } : turn;
    if (shown) await this.#notify(() => observer.turnStarting(shown), logger);
    const outcome = claimed
      ? await runner.runClaimed(claimed, signal)
      : how === 'resume'
        ? await runner.resume(turnId, signal)
        : await runner.run(turnId, signal, typeof how === 'object' && !('fence' in how) ? how : undefined);
    if (outcome.type !== 'not-claimed') await this.#notify(() => observer.turnSettled(outcome), logger);
    return outcome;
  }

  async #notify(send: () => Promise<void>, logger: Logger): Promise<void> {
    try {
      await send();
    } catch (error) {
      logger.warn({ err: error }, 'turn observer failed; the sweep will re-deliver');
    }
  }
}
