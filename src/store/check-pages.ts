import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { DatabaseCorruptError } from './store-errors.js';

/**
 * Files up to this size are page-checked before start-up completes (a few hundred milliseconds at most);
 * bigger ones right after, off the event loop, so a large history never delays serving.
 */
export const startupPageCheckLimitBytes = 64 * 1024 * 1024;

/**
 * Damaged pages surface only when a query touches them, which could be the first click hours later.
 * `quick_check` reads every page once (O(file size), without the index cross-checks).
 */
export function checkPagesNow(db: Database.Database, file: string): void {
  const problems = db.pragma('quick_check(5)', { simple: false }) as Array<{ quick_check: string }>;
  const found = problems.map((row) => row.quick_check).filter((line) => line !== 'ok');
  if (found.length > 0) throw new DatabaseCorruptError(file, `damaged pages: ${found.join('; ')}`);
}

// Plain CommonJS for an eval worker: it runs the same way under tsx and from the compiled build.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true, timeout: 5000 });
  const rows = db.pragma('quick_check(5)');
  parentPort.postMessage({ problems: rows.map((row) => row.quick_check).filter((line) => line !== 'ok') });
} catch (error) {
  parentPort.postMessage({ problems: [error && error.message ? error.message : String(error)] });
} finally {
  if (db) db.close();
}
`;

/**
 * The same check on a read-only connection in a worker thread: resolves with the damage found (none
 * when the file is sound), as the error start-up would have thrown.
 */
export function checkPagesInBackground(file: string): Promise<DatabaseCorruptError | undefined> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerSource, { eval: true, workerData: { file, driver } });
    worker.once('message', (message: { problems: string[] }) => {
      resolve(
        message.problems.length > 0
          ? new DatabaseCorruptError(file, `damaged pages: ${message.problems.join('; ')}`)
          : undefined,
      );
    });
    worker.once('error', reject);
    worker.unref();
  });
}
