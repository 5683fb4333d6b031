import type { QueryResult } from 'pg';

/** A statement to run in some later commit, and what its answer means to whoever queued it. */
interface DeferredStatement {
  readonly text: string;
  readonly values: readonly unknown[];
  readonly read: (answer: QueryResult) => boolean;
  readonly settle: (done: boolean) => void;
  readonly fail: (error: unknown) => void;
}

/** Where a transaction puts the statements riding along with it, each with a callback for its answer. */
export interface Carrier {
  later(text: string, values: readonly unknown[], onAnswer: (answer: QueryResult) => void): void;
}

/**
 * Writes that need not be a commit of their own — an outbox row marked delivered — ride along in the
 * next transaction this process commits anyway (a click, a tool result, a new turn), sent in its
 * messages and so costing it no round trip, or in one commit of their own after `flushMs` if nothing
 * else commits first. As on SQLite: losing them in a crash costs nothing but a lookup, since the row's
 * claim lapses and the sweep finds its message by metadata instead of posting again.
 */
export class PgDeferredWrites {
  #queue: DeferredStatement[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #flush: () => Promise<void>;

  constructor(
    readonly flushMs: number,
    flush: () => Promise<void>,
  ) {
    this.#flush = flush;
  }

  /** Resolves with what the statement's answer says (`read`) once it has committed. */
  add(text: string, values: readonly unknown[], read: (answer: QueryResult) => boolean): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.#queue.push({ text, values, read, settle, fail });
      this.#schedule();
    });
  }

  get size(): number {
    return this.#queue.length;
  }

  /**
   * Puts the queued statements into the caller's open transaction; call the returned function with the
   * transaction's fate once it is known. Statements that did not commit go back in the queue.
   */
  rideAlong(carrier: Carrier): (committed: boolean) => void {
    const taken = this.#queue;
    if (taken.length === 0) return () => {};
    this.#queue = [];
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const results: boolean[] = taken.map(() => false);
    taken.forEach((write, index) => {
      carrier.later(write.text, write.values, (answer) => {
        results[index] = write.read(answer);
      });
    });
    return (committed) => {
      if (committed) {
        taken.forEach((write, index) => {
          write.settle(results[index] ?? false);
        });
        return;
      }
      this.#queue = [...taken, ...this.#queue];
      this.#schedule();
    };
  }

  /** Gives up on everything queued (the store is closing and could not commit them). */
  abandon(error: unknown): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const write of this.#queue.splice(0)) write.fail(error);
  }

  /** A flush soon; again after a failed one, until the queue is empty. */
  #schedule(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.#flush().finally(() => {
        if (this.#queue.length > 0) this.#schedule();
      });
    }, this.flushMs);
  }
}
