import type { Logger } from 'pino';
import type { InboundMessage, InboundStore, NewInboundMessage } from '../store/store.js';
import { waitAtMost } from './wait-at-most.js';

/**
 * Makes a kept message into a turn (or into nothing); the adapter that kept it knows how. It answers
 * `settled` when the message left the store in its own commit (a turn's `inboundKey`), and throws only
 * when it could not finish and should be tried again (a storage fault): the message stays kept.
 */
export type InboundHandler = (message: InboundMessage) => Promise<{ readonly settled: boolean }>;

export interface InboundQueueOptions {
  readonly store: InboundStore;
  readonly logger: Logger;
  readonly now: () => number;
}

/** How long a message another process kept may wait before this one takes it over (see `sweep`). */
export const inboundTakeOverMs = 30_000;
const sweepBatch = 200;

/**
 * Between an acknowledgement and a turn. A message is kept on disk (`keep`) before its sender is told it
 * arrived; then, off the acknowledgement's path, the adapter's handler makes it a turn and the message is
 * settled. The messages of one lane (a thread) are handled one at a time, in the order they were kept, so
 * a slow lookup for the first cannot let the second overtake it. What a dead process kept is found by
 * `sweep`; handling a message twice is harmless, because a turn's trigger key is unique.
 */
export class InboundQueue {
  readonly #options: InboundQueueOptions;
  #handler: InboundHandler | undefined;
  readonly #lanes = new Map<string, Promise<void>>();
  /** Keys this process is handling, so a redelivery or a sweep does not start them twice. */
  readonly #handling = new Set<string>();
  #stopped = false;

  constructor(options: InboundQueueOptions) {
    this.#options = options;
  }

  /** Set by the adapter before it starts taking messages. */
  handle(handler: InboundHandler): void {
    this.#handler = handler;
  }

  /**
   * Keeps a message and queues it in its lane; resolves once it is on disk, which is when its sender may be
   * told it arrived. `kept: false`: this key was kept already (a redelivery), and is handled once.
   */
  async keep(message: NewInboundMessage): Promise<{ readonly kept: boolean }> {
    const kept = await this.#options.store.keep(message);
    // Kept before, by a process that is gone or another replica: handled here too, harmlessly, unless
    // this process is handling it already.
    if (kept || !this.#handling.has(message.key)) {
      this.#enqueue({ ...message, receivedAt: this.#options.now() });
    }
    return { kept };
  }

  /**
   * Queues what was kept and never settled: at boot everything (`olderThanMs: 0`), on the periodic sweep
   * only messages older than a live process would leave them, so another replica's are not raced.
   */
  async sweep(olderThanMs = inboundTakeOverMs): Promise<number> {
    if (!this.#handler || this.#stopped) return 0;
    const waiting = await this.#options.store.unsettled({
      receivedBefore: this.#options.now() - olderThanMs + 1,
      limit: sweepBatch,
    });
    let queued = 0;
    for (const message of waiting) {
      if (this.#handling.has(message.key)) continue;
      this.#enqueue(message);
      queued += 1;
    }
    return queued;
  }

  /** Resolves once every message kept so far has been handled. */
  async idle(): Promise<void> {
    while (this.#lanes.size > 0) await Promise.all([...this.#lanes.values()]);
  }

  /** Takes no more; waits up to `graceMs` for what is being handled. The rest stays kept for a sweep. */
  async stop(graceMs: number): Promise<void> {
    this.#stopped = true;
    await waitAtMost(this.idle(), graceMs);
  }

  #enqueue(message: InboundMessage): void {
    const handler = this.#handler;
    if (!handler || this.#stopped) return;
    this.#handling.add(message.key);
    const previous = this.#lanes.get(message.lane) ?? Promise.resolve();
    const next = previous.then(() => this.#run(handler, message));
    this.#lanes.set(message.lane, next);
    void next.finally(() => {
      if (this.#lanes.get(message.lane) === next) this.#lanes.delete(message.lane);
    });
  }

  async #run(handler: InboundHandler, message: InboundMessage): Promise<void> {
    try {
      if (this.#stopped) return;
      const { settled } = await handler(message);
      if (!settled) await this.#options.store.settle(message.key);
    } catch (error) {
      // Kept still: the sweep hands it over again.
      this.#options.logger.error({ err: error, key: message.key }, 'could not make a kept message a turn');
    } finally {
      this.#handling.delete(message.key);
    }
  }
}
