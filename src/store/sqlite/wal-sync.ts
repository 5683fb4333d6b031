import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../store-errors.js';

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * `synchronous=FULL` without blocking the event loop. SQLite's FULL fsyncs the WAL inside COMMIT, on the
 * only thread holdfast has: every commit stalls acknowledgements, clicks and every other turn for as
 * long as the disk takes (1–10 ms here, far more on a busy volume). Instead the connection commits with
 * `synchronous=NORMAL` (the WAL is written, not yet synced) and this fsyncs the WAL file on libuv's
 * thread pool; a write's promise resolves only once a sync that began after its commit has finished. So
 * nothing a caller does with a write's result (acknowledge Slack, run a tool, post a card) happens
 * before that write is on disk: the guarantee FULL gives. Commits that land while a sync is running
 * share the next one (group commit across the fsync).
 *
 * fsync applies to the file, not to the descriptor that wrote it, so one descriptor opened here covers
 * SQLite's writes, and those of any other process on the same WAL.
 *
 * A failed sync is final for this process. Linux may drop the pages it could not write and report the
 * error once: the next fsync then succeeds without them, and a commit after the hole would read as on
 * disk while recovery, stopping at the hole, would lose it. So, as PostgreSQL does, nothing is written
 * or reported durable after one (`failure`): a restart recovers from what the disk really holds.
 */
export class WalSync {
  readonly #walFile: string;
  #fd: number | undefined;
  #syncing = false;
  #waiting: Waiter[] = [];
  #closed = false;
  #failure: StoreUnavailableError | undefined;

  constructor(databaseFile: string) {
    this.#walFile = `${databaseFile}-wal`;
  }

  /** Set once a sync has failed: every write since is refused, and none is reported durable. */
  get failure(): StoreUnavailableError | undefined {
    return this.#failure;
  }

  /** Resolves once everything committed before the call is on disk. */
  durable(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    if (this.#closed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ resolve, reject });
      if (!this.#syncing) this.#start();
    });
  }

  /** Synchronously, for closing: everything committed so far is on disk when it returns. */
  syncNow(): void {
    const fd = this.#open();
    if (fd !== undefined) fs.fdatasyncSync(fd);
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const waiter of waiting) waiter.resolve();
  }

  close(): void {
    if (this.#closed) return;
    // After a failed sync, another one would prove nothing (see above).
    if (!this.#failure) this.syncNow();
    this.#closed = true;
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }

  #start(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    let fd: number | undefined;
    try {
      fd = this.#open();
    } catch (error) {
      for (const waiter of batch) waiter.reject(syncFailed(error));
      return;
    }
    if (fd === undefined) {
      for (const waiter of batch) waiter.resolve();
      return;
    }
    this.#syncing = true;
    fs.fdatasync(fd, (error) => {
      this.#syncing = false;
      // Closed meanwhile: the final synchronous sync covered these writes.
      if (error && !this.#closed) this.#failure ??= syncFailed(error);
      const failure = this.#failure;
      if (failure) {
        // Final: those waiting for the next sync fail with this one, and none is started.
        for (const waiter of [...batch, ...this.#waiting.splice(0)]) waiter.reject(failure);
        return;
      }
      for (const waiter of batch) waiter.resolve();
      if (this.#waiting.length > 0) this.#start();
    });
  }

  #open(): number | undefined {
    if (this.#fd !== undefined || this.#closed) return this.#fd;
    try {
      this.#fd = fs.openSync(this.#walFile, 'r');
    } catch (error) {
      // No log yet means nothing was committed through it: there is nothing to sync.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return this.#fd;
  }
}

/**
 * An fsync that fails leaves it unknown what reached the disk (the kernel may already have dropped the
 * dirty pages), so the write is reported failed, as SQLite reports an I/O error.
 */
function syncFailed(error: unknown): StoreUnavailableError {
  return new StoreUnavailableError('SQLITE_IOERR_FSYNC', { cause: error });
}

const walSyncs = new WeakMap<Database.Database, WalSync>();

export function attachWalSync(db: Database.Database, sync: WalSync): void {
  walSyncs.set(db, sync);
}

export function walSyncOf(db: Database.Database): WalSync | undefined {
  return walSyncs.get(db);
}
