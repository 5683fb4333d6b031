import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { openDatabase } from '../open-database.js';
import { createSqliteStore } from './create-sqlite-store.js';
import { queueWrite } from './sqlite-context.js';
import { attachWalCheckpointer, WalCheckpointer } from './wal-checkpointer.js';

describe('WAL checkpoints in a worker thread', () => {
  it('copies the log into the database beside the event loop, and leaves no log once the store closes', async () => {
    const file = tempDir('holdfast-checkpoint-').file('holdfast.db');
    const db = openDatabase(file, { synchronous: 'FULL' });
    attachWalCheckpointer(db, new WalCheckpointer(db, file, { intervalMs: 20 }));
    const store = createSqliteStore(db);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);

    db.exec('CREATE TABLE filler (body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
    const sizeBefore = fs.statSync(file).size;
    for (let i = 0; i < 200; i++) insert.run('x'.repeat(4_000));
    // Nothing on this connection checkpoints any more: the pages reach the file only through the worker.
    await vi.waitFor(() => expect(fs.statSync(file).size).toBeGreaterThan(sizeBefore + 200 * 4_000), {
      timeout: 10_000,
    });

    store.close();
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    const reopened = openDatabase(file, { synchronous: 'FULL' });
    expect(reopened.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: 200 });
    reopened.close();
  });

  it('hands checkpoints back to SQLite, and says why, when its worker cannot run', async () => {
    const file = tempDir('holdfast-checkpoint-').file('holdfast.db');
    const db = openDatabase(file, { synchronous: 'FULL' });
    const failures: Error[] = [];
    // The worker opens its own connection to this path, which does not exist.
    const missing = `${file}.missing`;
    attachWalCheckpointer(
      db,
      new WalCheckpointer(db, missing, { onFailure: (error) => failures.push(error) }),
    );
    const store = createSqliteStore(db);
    await vi.waitFor(() => expect(failures).toHaveLength(1), { timeout: 10_000 });
    expect(failures[0]?.message).toBe('the checkpoint worker failed (SQLITE_CANTOPEN)');
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    store.close();
  });

  it('lets a log under steady writes start over, so it stays small instead of growing with every commit', async () => {
    const log = steadyWriter();
    const rows = 3_000;
    await log.write(rows);
    expect(log.salts.size).toBeGreaterThan(2);
    // Never starting over, the file would hold every row written, and more.
    expect(log.largest).toBeLessThan(rows * log.rowBytes * 0.75);

    log.close();
    const reopened = openDatabase(log.file, { synchronous: 'FULL' });
    expect(reopened.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: rows });
    reopened.close();
  });

  it('waits for a reader still on the log, and starts the log over again once it has gone', async () => {
    const log = steadyWriter();
    await log.write(200);
    const reader = new Database(log.file, { readonly: true });
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM filler').get();
    const salts = log.salts.size;
    try {
      // A trickle behind the reader's snapshot: each tick finds a few frames left, and a reader in the way.
      await log.write(40, { burst: 1, pauseMs: 8 });
      // Its snapshot is in the log: starting over would overwrite frames it may still read.
      expect(log.salts.size).toBe(salts);
    } finally {
      reader.prepare('COMMIT').run();
      reader.close();
    }
    // Tries that met the reader came less and less often; the first after it has gone starts over.
    await vi.waitFor(
      async () => {
        await log.write(20);
        expect(log.salts.size).toBeGreaterThan(salts);
      },
      { timeout: 15_000 },
    );
    log.close();
  });

  it('holds a batch of writes beside the event loop while a RESTART has the write lock', async () => {
    // A reader on the log keeps each RESTART waiting, with the write lock, for up to 300 ms.
    const log = steadyWriter({ restartWaitMs: 300 });
    await log.write(200);
    await log.write(5, { burst: 5, pauseMs: 0 });
    const reader = new Database(log.file, { readonly: true });
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM filler').get();
    try {
      await vi.waitFor(() => expect(log.checkpointer.restartUnderWay()).toBeDefined(), {
        timeout: 10_000,
        interval: 1,
      });
      const events: string[] = [];
      const written = queueWrite(log.db, () => events.push('written'), { resolve: 'at-commit' });
      setImmediate(() => events.push('event loop'));
      await written;
      // Asleep in SQLite's busy handler, the thread would have written first and answered nothing else.
      expect(events).toEqual(['event loop', 'written']);
    } finally {
      reader.prepare('COMMIT').run();
      reader.close();
    }
    log.close();
  });
});

/**
 * A store whose checkpointer ticks every 20 ms, and a table to fill in bursts of commits (by default 20,
 * a millisecond apart). A restart gives the log new salts (bytes 16-23 of its header); `salts` collects those seen.
 */
function steadyWriter(options: { readonly restartWaitMs?: number } = {}) {
  const file = tempDir('holdfast-checkpoint-').file('holdfast.db');
  const db = openDatabase(file, { synchronous: 'FULL' });
  const checkpointer = new WalCheckpointer(db, file, { intervalMs: 20, ...options });
  attachWalCheckpointer(db, checkpointer);
  const store = createSqliteStore(db);
  db.exec('CREATE TABLE filler (body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
  const rowBytes = 2_000;
  const saltsOf = () => {
    const header = Buffer.alloc(8);
    const fd = fs.openSync(`${file}-wal`, 'r');
    fs.readSync(fd, header, 0, 8, 16);
    fs.closeSync(fd);
    return header.toString('hex');
  };
  const writer = {
    file,
    db,
    checkpointer,
    rowBytes,
    salts: new Set<string>(),
    largest: 0,
    async write(rows: number, pace = { burst: 20, pauseMs: 1 }) {
      for (let i = 1; i <= rows; i++) {
        insert.run('x'.repeat(rowBytes));
        if (i % pace.burst === 0) {
          writer.salts.add(saltsOf());
          writer.largest = Math.max(writer.largest, fs.statSync(`${file}-wal`).size);
          await new Promise((resolve) => setTimeout(resolve, pace.pauseMs));
        }
      }
    },
    close: () => store.close(),
  };
  return writer;
}
