import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/**
 * SQLite checkpoints the WAL from whichever connection commits past 1,000 pages: on holdfast's one thread,
 * every few cycles, it copies pages into the database file and fsyncs it twice while acknowledgements
 * and clicks wait. Here a worker thread with a connection of its own runs PASSIVE checkpoints instead
 * (they never block a writer or a reader), and the main connection's automatic ones are turned off.
 *
 * PASSIVE alone never lets a busy log start over: the log restarts only when a writer finds every frame
 * copied, and under steady writes new frames always land while the copy runs. The log then grew without
 * end, and every WAL sync appended to a growing file, which costs the disk a metadata commit too (about
 * twice the sync of a rewrite in place). So once the passes have nearly caught up, a RESTART copies the
 * few frames left while holding the write lock, and the next commit writes the log from its start. The
 * main connection's writes wait the length of that short copy and its fsync, a few times a second, and
 * they wait beside the event loop (`restartUnderWay`), not asleep in SQLite's busy handler.
 */
export class WalCheckpointer {
  readonly #db: Database.Database;
  readonly #worker: Worker;
  /** [0]: set to 1 by the worker once its connection is closed. */
  readonly #closed = new Int32Array(new SharedArrayBuffer(4));
  /** [0]: 1 while the worker runs a RESTART, which holds the write lock. */
  readonly #restarting = new Int32Array(new SharedArrayBuffer(4));
  #stopped = false;

  constructor(
    db: Database.Database,
    file: string,
    options: {
      readonly intervalMs?: number;
      readonly restartWaitMs?: number;
      /** Hears why the worker stopped, when it stops before `stop()`: SQLite's own checkpoints take over. */
      readonly onFailure?: (error: Error) => void;
    } = {},
  ) {
    this.#db = db;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        file,
        driver,
        closed: this.#closed,
        restarting: this.#restarting,
        ...restartTuning,
        intervalMs: options.intervalMs ?? 250,
        restartWaitMs: options.restartWaitMs ?? restartTuning.restartWaitMs,
      },
    });
    this.#worker.unref();
    let fellBack = false;
    const fallBack = (error: unknown) => {
      // A worker gone mid-RESTART no longer holds the lock; nobody may keep waiting for it.
      Atomics.store(this.#restarting, 0, 0);
      Atomics.notify(this.#restarting, 0);
      // An error is followed by an exit: the first says why.
      if (fellBack || this.#stopped || !this.#db.open) return;
      fellBack = true;
      // Without its checkpointer the WAL would only grow: SQLite's own checkpoints take over again.
      this.#db.pragma('wal_autocheckpoint = 1000');
      options.onFailure?.(workerFailure(error));
    };
    this.#worker.once('error', fallBack);
    this.#worker.once('exit', (code) =>
      fallBack(new Error(`the checkpoint worker exited with code ${code}`)),
    );
    db.pragma('wal_autocheckpoint = 0');
  }

  /**
   * Resolves once a RESTART under way has let go of the write lock (or after `maxWaitMs`, when SQLite's
   * busy handler takes over), or is undefined when none is under way.
   */
  restartUnderWay(maxWaitMs = 1_000): Promise<unknown> | undefined {
    const wait = waitAsync(this.#restarting, 0, 1, maxWaitMs);
    if (!wait.async) return undefined;
    // The wait's promise alone keeps no process alive: with nothing else to do, Node would exit on it.
    const keepAlive = setTimeout(() => {}, maxWaitMs);
    return wait.value.finally(() => clearTimeout(keepAlive));
  }

  /** Closes the worker's connection first, so the main one, closing last, checkpoints and removes the WAL. */
  stop(timeoutMs = 2_000): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#worker.postMessage('close');
    Atomics.wait(this.#closed, 0, 0, timeoutMs);
    void this.#worker.terminate();
  }
}

/** What crosses from the worker is a clone: better-sqlite3's error class keeps only its `code` on the way. */
function workerFailure(error: unknown): Error {
  if (error instanceof Error && error.message) return error;
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
  return new Error(`the checkpoint worker failed${code ? ` (${code})` : ''}`, { cause: error });
}

// Node has had it since 16; TypeScript's types have it from ES2024's lib on.
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/**
 * When the log restarts. A RESTART holds the write lock while it copies what PASSIVE left and fsyncs
 * the database file, so it runs only once that is a few hundred frames; it waits at most `restartWaitMs`
 * for a reader still on the log, and after one that could not finish (a long read, such as an audit
 * export) the next tries come less often, up to one in `maxBackoffTicks`, so a slow reader never holds
 * the writers up several times a second.
 */
const restartTuning = { restartBelowFrames: 256, passes: 4, restartWaitMs: 10, maxBackoffTicks: 64 };

// Plain CommonJS for an eval worker: it runs the same way under tsx and from the compiled build.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const { restartBelowFrames, passes, maxBackoffTicks, restarting } = workerData;
const db = new Database(workerData.file, { fileMustExist: true, timeout: workerData.restartWaitMs });
const checkpoint = (mode) => db.pragma('wal_checkpoint(' + mode + ')')[0];
const behind = (result) => result.log - result.checkpointed;
let backoff = 0;
let skip = 0;
const timer = setInterval(() => {
  try {
    // Each pass copies what was committed while the one before ran, so a few bring a busy log close.
    let result = checkpoint('PASSIVE');
    for (let pass = 1; pass < passes && behind(result) > restartBelowFrames; pass++) {
      result = checkpoint('PASSIVE');
    }
    // An empty log has nothing to start over; one far behind would hold the writers up too long.
    if (result.busy || result.log === 0 || behind(result) > restartBelowFrames) return;
    if (skip > 0) {
      skip--;
      return;
    }
    // The main thread's write batcher sees the flag and waits for it to drop before its next commit.
    Atomics.store(restarting, 0, 1);
    let restart;
    try {
      restart = checkpoint('RESTART');
    } finally {
      Atomics.store(restarting, 0, 0);
      Atomics.notify(restarting, 0);
    }
    if (restart.busy) {
      backoff = Math.min(maxBackoffTicks, Math.max(1, backoff * 2));
      skip = backoff;
    } else {
      backoff = 0;
    }
  } catch {
    // Busy or locked: the next tick tries again.
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  Atomics.store(workerData.closed, 0, 1);
  Atomics.notify(workerData.closed, 0);
  parentPort.close();
});
`;

const checkpointers = new WeakMap<Database.Database, WalCheckpointer>();

export function attachWalCheckpointer(db: Database.Database, checkpointer: WalCheckpointer): void {
  checkpointers.set(db, checkpointer);
}

export function walCheckpointerOf(db: Database.Database): WalCheckpointer | undefined {
  return checkpointers.get(db);
}
