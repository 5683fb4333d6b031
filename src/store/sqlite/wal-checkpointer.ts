import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/**
 * SQLite checkpoints the WAL from whichever connection commits past 1,000 pages: on holdfast's one thread,
 * every few cycles, it copies pages into the database file and fsyncs it twice while acknowledgements
 * and clicks wait. Here a worker thread with a connection of its own runs PASSIVE checkpoints instead
 * (they never block a writer or a reader), and the main connection's automatic ones are turned off.
 */
export class WalCheckpointer {
  readonly #db: Database.Database;
  readonly #worker: Worker;
  /** [0]: set to 1 by the worker once its connection is closed. */
  readonly #closed = new Int32Array(new SharedArrayBuffer(4));
  #stopped = false;

  constructor(db: Database.Database, file: string, intervalMs = 250) {
    this.#db = db;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(workerSource, {
      eval: true,
      workerData: { file, driver, intervalMs, closed: this.#closed },
    });
    this.#worker.unref();
    const fallBack = () => {
      // Without its checkpointer the WAL would only grow: SQLite's own checkpoints take over again.
      if (!this.#stopped && this.#db.open) this.#db.pragma('wal_autocheckpoint = 1000');
    };
    this.#worker.once('error', fallBack);
    this.#worker.once('exit', fallBack);
    db.pragma('wal_autocheckpoint = 0');
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

// Plain CommonJS for an eval worker: it runs the same way under tsx and from the compiled build.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true, timeout: 0 });
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
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
