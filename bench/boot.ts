/**
 * Boot on a database with a big backlog: 100,000 requests waiting for a decision, 10,000 of them overdue.
 * holdfast must be serving in under a second (expiry runs in batches after start-up, not before it), and
 * the overdue ones are expired meanwhile.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { checkPagesInBackground, startupPageCheckLimitBytes } from '../src/store/check-pages.js';
import type { SynchronousMode } from '../src/store/open-database.js';
import { buildHoldfastHarness } from './holdfast-cycle.js';

export interface BootResult {
  readonly pending: number;
  readonly overdue: number;
  readonly databaseMb: number;
  /** Open, migrate check, build the runtime, boot recovery: until holdfast would say it is running. */
  readonly bootMs: number;
  /** From the start of boot until the background page check finished (0 damage expected). */
  readonly pageCheckMs: number;
  /** From the start of boot until every overdue request is expired (in the background). */
  readonly expiredAllMs: number;
}

/** Text columns naming a row or its thread: suffixed in each copy so every copy is a thread of its own. */
const identifying = new Set([
  'id',
  'conversation_id',
  'turn_id',
  'transcript_id',
  'request_id',
  'approval_id',
  'thread_ts',
  'trigger_key',
  'key',
  'ts',
  'card_ts',
]);
const cloned = [
  'conversations',
  'turns',
  'messages',
  'tool_executions',
  'approvals',
  'approval_cards',
  'outbox',
];

/**
 * Copies a few real suspended conversations (made through the runtime) until the file holds `pending`
 * of them: the rows are exactly what holdfast writes, at a fraction of the time it takes to make them.
 */
function multiply(file: string, copies: number): void {
  const db = new Database(file);
  try {
    // A throwaway copy: no journal at all, so the seed is written once instead of via the log.
    db.pragma('journal_mode = DELETE');
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    // The originals, set aside once, so each copy reads 250 rows rather than the growing table.
    for (const table of cloned) db.exec(`CREATE TEMP TABLE original_${table} AS SELECT * FROM main.${table}`);
    const statements = cloned.map((table) => {
      const columns = (db.pragma(`table_info(${table})`) as Array<{ name: string; type: string; pk: number }>)
        // Integer keys are assigned anew.
        .filter((column) => !(column.pk > 0 && column.type === 'INTEGER'));
      const names = columns.map((column) => column.name);
      const values = columns.map((column) =>
        identifying.has(column.name) && column.type === 'TEXT' ? `${column.name} || @suffix` : column.name,
      );
      return db.prepare(
        `INSERT INTO main.${table} (${names.join(', ')}) SELECT ${values.join(', ')} FROM temp.original_${table}`,
      );
    });
    db.transaction(() => {
      for (let copy = 1; copy < copies; copy++) {
        for (const statement of statements) statement.run({ suffix: `#${copy}` });
      }
    })();
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
}

export async function measureBoot(
  workdir: string,
  options: { readonly pending: number; readonly overdue: number; readonly synchronous: SynchronousMode },
): Promise<BootResult> {
  const file = path.join(workdir, 'boot.db');
  const template = 250;
  const seeding = buildHoldfastHarness(file, {
    synchronous: 'OFF',
    admission: { perThread: 5, perUser: Number.MAX_SAFE_INTEGER },
  });
  for (let i = 0; i < template; i++) await seeding.mention(`1900000000.${String(i).padStart(6, '0')}`);
  await seeding.close();
  multiply(file, Math.ceil(options.pending / template));

  const db = new Database(file);
  db.prepare(
    `UPDATE approvals SET expires_at = 1 WHERE rowid IN
       (SELECT rowid FROM approvals WHERE resolved_at IS NULL LIMIT ?)`,
  ).run(options.overdue);
  const pending = Number(
    db.prepare('SELECT count(*) FROM approvals WHERE resolved_at IS NULL').pluck().get(),
  );
  db.pragma('wal_checkpoint(TRUNCATE)');
  const pageCount = Number(db.pragma('page_count', { simple: true }));
  const pageSize = Number(db.pragma('page_size', { simple: true }));
  db.close();

  // As holdfast boots: a file this size is page-checked in a worker after start-up, not before it.
  const large = fs.statSync(file).size > startupPageCheckLimitBytes;
  const started = performance.now();
  const harness = buildHoldfastHarness(file, {
    synchronous: options.synchronous,
    pageCheck: large ? 'skip' : 'now',
  });
  const pageCheck = large ? checkPagesInBackground(file) : Promise.resolve(undefined);
  await harness.runtime.recover({ expiry: 'background' });
  const bootMs = performance.now() - started;
  const damage = await pageCheck;
  if (damage) throw damage;
  const pageCheckMs = performance.now() - started;
  while (harness.pendingApprovals() > pending - options.overdue) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const expiredAllMs = performance.now() - started;
  await harness.close();
  return {
    pending,
    overdue: options.overdue,
    databaseMb: (pageCount * pageSize) / 1024 / 1024,
    bootMs,
    pageCheckMs,
    expiredAllMs,
  };
}
