import PQueue from 'p-queue';
import type { Logger } from 'pino';

/**
 * Status updates for Slack threads, in order within each thread and beside the turns: each thread has a
 * lane, and the lanes share a pool of slots. An update that fails is logged and the lane goes on, since
 * status is decoration and never holds up a turn.
 */
export class ThreadLanes {
  readonly #lanes = new Map<string, Promise<void>>();
  readonly #slots: PQueue;
  readonly #logger: Logger;

  constructor(logger: Logger, options: { readonly slots?: number } = {}) {
    this.#logger = logger;
    this.#slots = new PQueue({ concurrency: options.slots ?? 64 });
  }

  /** Queues `work` behind the thread's earlier updates and returns at once. */
  add(conversationId: string, work: () => Promise<void>): Promise<void> {
    const lane = (this.#lanes.get(conversationId) ?? Promise.resolve())
      .then(() => this.#slots.add(work))
      .catch((error: unknown) =>
        this.#logger.debug({ err: error, conversationId }, 'could not update the thread status'),
      );
    this.#lanes.set(conversationId, lane);
    void lane.finally(() => {
      if (this.#lanes.get(conversationId) === lane) this.#lanes.delete(conversationId);
    });
    return Promise.resolve();
  }

  /** Resolves once every update queued so far, and any they queued, is done. */
  async idle(): Promise<void> {
    while (this.#lanes.size > 0) await Promise.all([...this.#lanes.values()]);
  }
}
