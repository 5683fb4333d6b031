import type Database from 'better-sqlite3';

interface DeferredWrite {
  readonly run: () => boolean;
  readonly settle: (done: boolean) => void;
  readonly fail: (error: unknown) => void;
}

/**
 * Writes that need not be a commit of their own — an outbox row marked delivered — ride along in the
 * next transaction this process commits anyway (a click, a tool result, a new turn), or in one commit of
 * their own after `flushMs` if nothing else commits first. Losing them in a crash costs nothing but a
 * lookup: the row's claim lapses and the sweep finds its message by metadata instead of posting again.
 */
export class DeferredWrites {
  #queue: DeferredWrite[] = [];
  #timer: NodeJS.Timeout | undefined;
  readonly #flush: () => void;

  constructor(
    readonly flushMs: number,
    flush: () => void,
  ) {
    this.#flush = flush;
  }

  /** Resolves with the write's own result once it has committed. */
  add(run: () => boolean): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.#queue.push({ run, settle, fail });
      this.#schedule();
    });
  }

  /** A flush soon; again after a failed one (a lock held too long), until the queue is empty. */
  #schedule(): void {
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
      if (this.#queue.length > 0) this.#schedule();
    }, this.flushMs);
  }

  get size(): number {
    return this.#queue.length;
  }

  /**
   * Runs the queued writes inside the caller's open transaction; call the returned function with the
   * transaction's fate once it is known. Writes that did not commit go back in the queue.
   */
  runInside(): (committed: boolean) => void {
    const taken = this.#queue;
    if (taken.length === 0) return () => {};
    this.#queue = [];
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const results = taken.map((write) => write.run());
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

  /** Gives up on everything queued (the database is closing). */
  abandon(error: unknown): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const write of this.#queue.splice(0)) write.fail(error);
  }
}

const deferredByDatabase = new WeakMap<Database.Database, DeferredWrites>();

export function deferredWritesOf(db: Database.Database): DeferredWrites | undefined {
  return deferredByDatabase.get(db);
}

export function attachDeferredWrites(db: Database.Database, writes: DeferredWrites): void {
  deferredByDatabase.set(db, writes);
}
