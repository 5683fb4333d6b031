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
});
