import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { StoreUnavailableError } from '../store-errors.js';

interface Waiter {
  /** How many commits had asked for a sync when this one did: syncs begun after that cover it. */
  readonly asked: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** Syncs running at once, at most: the second spares a write that lands mid-sync from waiting it out. */
const syncsAtOnce = 2;

/**
 * `synchronous=FULL` without blocking the event loop. SQLite's FULL fsyncs the WAL inside COMMIT, on the
 * only thread holdfast has: every commit stalls acknowledgements, clicks and every other turn for as
 * long as the disk takes (1–10 ms here, far more on a busy volume). Instead the connection commits with
 * `synchronous=NORMAL` (the WAL is written, not yet synced) and this fsyncs the WAL file on libuv's
 * thread pool; a write's promise resolves only once a sync that began after its commit has finished. So
 * nothing a caller does with a write's result (acknowledge Slack, run a tool, post a card) happens
 * before that write is on disk: the guarantee FULL gives.
 *
 * A commit that lands while a sync runs starts a second at once rather than waiting for the first to end
 * (under load that wait, and the trip through the event loop after it, was most of an acknowledgement's
 * delay); beyond two, commits wait and share the next one (group commit across the fsync). Whichever
 * sync ends first releases every write committed before it began.
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
  #running = 0;
  #asked = 0;
  /** What the sync begun last covers: waiters up to it need no sync of their own. */
  #covered = 0;
  /** Commits noted on this connection (`noteCommit`), and how many of them a finished sync covers. */
  #commits = 0;
  #syncedCommits = 0;
  /** Syncs running now: the waiters and the commits each covers. */
  readonly #inFlight: Array<{ readonly asked: number; readonly commits: number }> = [];
  #waiting: Waiter[] = [];
  #closed = false;
  #failure: StoreUnavailableError | undefined;
  readonly #sharedFailure: Int32Array;

  /**
   * `sharedFailure`: [0] becomes 1 once a sync fails on any connection to the same file that shares it
   * (the intake thread's): a failure seen by one is final for all.
   */
  constructor(databaseFile: string, options: { readonly sharedFailure?: Int32Array } = {}) {
    this.#walFile = `${databaseFile}-wal`;
    this.#sharedFailure = options.sharedFailure ?? new Int32Array(new SharedArrayBuffer(4));
  }

  /** To give another thread's WalSync on the same file, so that a failure on either stops both. */
  get sharedFailure(): Int32Array {
    return this.#sharedFailure;
  }

  /** Set once a sync has failed: every write since is refused, and none is reported durable. */
  get failure(): StoreUnavailableError | undefined {
    if (!this.#failure && Atomics.load(this.#sharedFailure, 0) === 1)
      this.#failure = syncFailed(new Error('a WAL sync failed on another connection to this file'));
    return this.#failure;
  }

  /** Resolves once everything committed before the call is on disk. */
  durable(): Promise<void> {
    const failure = this.failure;
    if (failure) return Promise.reject(failure);
    if (this.#closed) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#asked += 1;
      this.#waiting.push({ asked: this.#asked, resolve, reject });
      if (this.#running < syncsAtOnce) this.#start();
    });
  }

  /** Called after each commit on this connection, so `caughtUp` knows what a sync must cover. */
  noteCommit(): void {
    this.#commits += 1;
  }

  /**
   * Resolves once every commit noted so far is on disk: at once when a finished sync covers them, with
   * the sync already running for them when there is one (no sync of its own), with a new one otherwise.
   * For whatever reads a committed row and then shows it to someone (the outbox worker).
   */
  caughtUp(): Promise<void> {
    const failure = this.failure;
    if (failure) return Promise.reject(failure);
    if (this.#closed || this.#commits <= this.#syncedCommits) return Promise.resolve();
    const covering = this.#inFlight.find((sync) => sync.commits >= this.#commits);
    if (!covering) return this.durable();
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ asked: covering.asked, resolve, reject });
    });
  }

  /** Synchronously, for closing: everything committed so far is on disk when it returns. */
  syncNow(): void {
    const fd = this.#open();
    if (fd !== undefined) fs.fdatasyncSync(fd);
    this.#syncedCommits = this.#commits;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const waiter of waiting) waiter.resolve();
  }

  close(): void {
    if (this.#closed) return;
    // After a failed sync, another one would prove nothing (see above).
    if (!this.failure) this.syncNow();
    this.#closed = true;
    if (this.#fd !== undefined) fs.closeSync(this.#fd);
    this.#fd = undefined;
  }

  #start(): void {
    let fd: number | undefined;
    try {
      fd = this.#open();
    } catch (error) {
      this.#settle(this.#asked, syncFailed(error));
      return;
    }
    if (fd === undefined) {
      this.#settle(this.#asked);
      return;
    }
    const covers = this.#asked;
    this.#covered = covers;
    this.#running += 1;
    const sync = { asked: covers, commits: this.#commits };
    this.#inFlight.push(sync);
    fs.fdatasync(fd, (error) => {
      this.#running -= 1;
      this.#inFlight.splice(this.#inFlight.indexOf(sync), 1);
      // Closed meanwhile: the final synchronous sync covered these writes.
      if (error && !this.#closed) {
        this.#failure ??= syncFailed(error);
        Atomics.store(this.#sharedFailure, 0, 1);
      }
      const failure = this.failure;
      if (failure) {
        // Final: everyone waiting fails with it, and no sync is started again.
        this.#settle(Number.POSITIVE_INFINITY, failure);
        return;
      }
      this.#syncedCommits = Math.max(this.#syncedCommits, sync.commits);
      this.#settle(covers);
      if (this.#asked > this.#covered && this.#running < syncsAtOnce) this.#start();
    });
  }

  /** Releases the writes committed before a sync that covered `asked` began (or fails them). */
  #settle(asked: number, failure?: unknown): void {
    // Not always a prefix: `caughtUp` joins a running sync behind waiters for a later one.
    const settled = this.#waiting.filter((waiter) => waiter.asked <= asked);
    if (settled.length === 0) return;
    this.#waiting = this.#waiting.filter((waiter) => waiter.asked > asked);
    for (const waiter of settled) {
      if (failure === undefined) waiter.resolve();
      else waiter.reject(failure);
    }
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
