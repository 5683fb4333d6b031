import fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { openDatabase } from '../open-database.js';
import { createSqliteStore } from './create-sqlite-store.js';
import { attachWalCheckpointer, WalCheckpointer } from './wal-checkpointer.js';

describe('WAL checkpoints in a worker thread', () => {
  it('copies the log into the database beside the event loop, and leaves no log once the store closes', async () => {
    const file = tempDir('holdfast-checkpoint-').file('holdfast.db');
    const db = openDatabase(file, { synchronous: 'FULL' });
    attachWalCheckpointer(db, new WalCheckpointer(db, file, 20));
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

  it('lets a log under steady writes start over, so it stays small instead of growing with every commit', async () => {
    const file = tempDir('holdfast-checkpoint-').file('holdfast.db');
    const db = openDatabase(file, { synchronous: 'FULL' });
    attachWalCheckpointer(db, new WalCheckpointer(db, file, 20));
    const store = createSqliteStore(db);
    db.exec('CREATE TABLE filler (body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
    // A restart gives the log new salts (bytes 16-23 of its header); frames are then written from its start.
    const saltsOf = () => {
      const header = Buffer.alloc(8);
      const fd = fs.openSync(`${file}-wal`, 'r');
      fs.readSync(fd, header, 0, 8, 16);
      fs.closeSync(fd);
      return header.toString('hex');
    };
    const salts = new Set<string>();
    let largestLog = 0;
    const rows = 3_000;
    const rowBytes = 2_000;
    // Bursts of commits a millisecond apart, through a dozen of the checkpointer's ticks.
    for (let i = 1; i <= rows; i++) {
      insert.run('x'.repeat(rowBytes));
      if (i % 20 === 0) {
        salts.add(saltsOf());
        largestLog = Math.max(largestLog, fs.statSync(`${file}-wal`).size);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    }
    expect(salts.size).toBeGreaterThan(2);
    expect(largestLog).toBeLessThan((rows * rowBytes) / 2);

    store.close();
    const reopened = openDatabase(file, { synchronous: 'FULL' });
    expect(reopened.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: rows });
    reopened.close();
  });
});
