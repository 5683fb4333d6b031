import type Database from 'better-sqlite3';
import { deferredWritesOf } from './deferred-writes.js';
import { walSyncOf } from './wal-sync.js';

interface QueuedWrite {
  readonly run: () => unknown;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit. Writes that arrive while the event loop is busy (a burst of mentions, many turns
 * finishing at once) run together in one `BEGIN IMMEDIATE` transaction, each in its own savepoint, so
 * they cost one fsync instead of one each, and the loop is blocked once. Each write still succeeds or
 * fails alone: one that throws (a stale fence) rolls back its savepoint only. A lone write waits one
 * turn of the event loop at most.
 */
export class WriteBatcher {
  readonly #db: Database.Database;
  #queue: QueuedWrite[] = [];
  #scheduled = false;
  readonly #flushBatch: (writes: readonly QueuedWrite[]) => unknown[];

  constructor(db: Database.Database, translate: <Result>(work: () => Result) => Result) {
    this.#db = db;
    const transaction = db.transaction((writes: readonly QueuedWrite[]) => {
      const settleDeferred = deferredWritesOf(db)?.runInside();
      const outcomes = writes.map((write) => {
        try {
          return { ok: true as const, value: translate(() => write.run()) };
        } catch (error) {
          // A full disk or an I/O error can roll the whole transaction back, not just this savepoint: then
          // nothing of the batch is written, and every write of it fails alike.
          if (!db.inTransaction) throw error;
          return { ok: false as const, error };
        }
      });
      return [settleDeferred, outcomes] as const;
    });
    this.#flushBatch = (writes) => {
      let settleDeferred: ((committed: boolean) => void) | undefined;
      try {
        const [settle, outcomes] = translate(() => transaction.immediate(writes));
        settleDeferred = settle;
        settleDeferred?.(true);
        return outcomes;
      } catch (error) {
        settleDeferred?.(false);
        throw error;
      }
    };
  }

  /** Queues `run` (a function that runs its statements inside a savepoint) for the next group commit. */
  add<Result>(run: () => Result): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#queue.push({ run, resolve: resolve as (result: unknown) => void, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  /** Commits everything queued now (also called when the store closes). */
  flush(): void {
    this.#scheduled = false;
    const writes = this.#queue;
    if (writes.length === 0 || !this.#db.open) return;
    this.#queue = [];
    const walSync = walSyncOf(this.#db);
    // After a failed sync nothing more is committed: it could not be reported durable (see WalSync).
    const refusal = walSync?.failure;
    if (refusal) {
      for (const write of writes) write.reject(refusal);
      return;
    }
    let outcomes: unknown[];
    try {
      outcomes = this.#flushBatch(writes);
    } catch (error) {
      for (const write of writes) write.reject(error);
      return;
    }
    const settle = () =>
      outcomes.forEach((outcome, index) => {
        const write = writes[index] as QueuedWrite;
        const result = outcome as { ok: boolean; value?: unknown; error?: unknown };
        if (result.ok) write.resolve(result.value);
        else write.reject(result.error);
      });
    if (!walSync) {
      settle();
      return;
    }
    // Committed, not yet on disk: nobody hears of it (an ack, a tool run, a post) until it is.
    walSync.durable().then(settle, (error: unknown) => {
      for (const write of writes) write.reject(error);
    });
  }
}

const batchers = new WeakMap<Database.Database, WriteBatcher>();

export function batcherOf(
  db: Database.Database,
  translate: <Result>(work: () => Result) => Result,
): WriteBatcher {
  let batcher = batchers.get(db);
  if (!batcher) {
    batcher = new WriteBatcher(db, translate);
    batchers.set(db, batcher);
  }
  return batcher;
}
