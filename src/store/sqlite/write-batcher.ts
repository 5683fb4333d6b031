import type Database from 'better-sqlite3';
import { deferredWritesOf } from './deferred-writes.js';
import { outboxCommitNoticesOf } from './outbox-commit-notices.js';
import { walCheckpointerOf } from './wal-checkpointer.js';
import { walSyncOf } from './wal-sync.js';

/** When a write's caller hears of it: see `WriteBatcher.add`. */
export interface WriteRelease<Result> {
  readonly resolve?: 'on-disk' | 'at-commit';
  /**
   * Hears of a write that succeeded as soon as it commits; `onDisk` resolves once that commit is on disk
   * (at once without a WAL sync), and rejects if it never gets there.
   */
  readonly onCommit?: (result: Result, onDisk: Promise<void>) => void;
}

interface QueuedWrite {
  readonly run: () => unknown;
  readonly release: WriteRelease<unknown>;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

type Outcome =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown };

/** Tells `onCommit`; one that throws fails its own write's promise, and no other write of the batch. */
function heardAtCommit(write: QueuedWrite, committed: Outcome, onDisk: Promise<void>): Outcome {
  const { onCommit } = write.release;
  if (!committed.ok || !onCommit) return committed;
  try {
    onCommit(committed.value, onDisk);
    return committed;
  } catch (error) {
    return { ok: false, error };
  }
}

function settleWrite(write: QueuedWrite, outcome: Outcome): void {
  if (outcome.ok) write.resolve(outcome.value);
  else write.reject(outcome.error);
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
  readonly #flushBatch: (writes: readonly QueuedWrite[]) => Outcome[];

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

  /**
   * Queues `run` (a function that runs its statements inside a savepoint) for the next group commit. The
   * promise resolves once the commit is on disk, or with `resolve: 'at-commit'` once it commits (and the
   * commit starts no sync of its own: a later one covers it). `onCommit` hears of a write that succeeded
   * as soon as it commits, while its promise still waits for the disk.
   */
  add<Result>(run: () => Result, release: WriteRelease<Result> = {}): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.#queue.push({
        run,
        release: release as WriteRelease<unknown>,
        resolve: resolve as (result: unknown) => void,
        reject,
      });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#flushWhenWritable());
    });
  }

  /**
   * A checkpoint that restarts the log holds the write lock for a moment: the batch waits for it here,
   * where the event loop goes on, rather than in SQLite's busy handler, which sleeps the thread in steps
   * of 1 ms and more. Writes queued meanwhile join the batch.
   */
  #flushWhenWritable(): void {
    const restart = walCheckpointerOf(this.#db)?.restartUnderWay();
    if (restart) void restart.then(() => this.flush());
    else this.flush();
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
    const notices = outboxCommitNoticesOf(this.#db);
    let outcomes: Outcome[];
    try {
      outcomes = this.#flushBatch(writes);
    } catch (error) {
      notices.settle(false);
      for (const write of writes) write.reject(error);
      return;
    }
    walSync?.noteCommit();
    // One sync covers the whole batch, begun after the commit when anybody waits for it, and before
    // anybody hears of the commit: what they do next (a turn's reads, the outbox's plan) overlaps it.
    const synced =
      walSync && writes.some((write) => write.release.resolve !== 'at-commit' || write.release.onCommit)
        ? walSync.durable()
        : Promise.resolve();
    // A listener may drop it; the writes waiting below still hear of a failure.
    synced.catch(() => {});
    const waitingForDisk: Array<readonly [QueuedWrite, Outcome]> = [];
    outcomes.forEach((committed, index) => {
      const write = writes[index] as QueuedWrite;
      const outcome = heardAtCommit(write, committed, synced);
      if (walSync && write.release.resolve !== 'at-commit') waitingForDisk.push([write, outcome]);
      else settleWrite(write, outcome);
    });
    notices.settle(true);
    if (waitingForDisk.length === 0) return;
    // Committed, not yet on disk: nobody hears of it (an ack, a tool run, a post) until it is.
    synced.then(
      () => {
        for (const [write, outcome] of waitingForDisk) settleWrite(write, outcome);
      },
      (error: unknown) => {
        for (const [write] of waitingForDisk) write.reject(error);
      },
    );
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
