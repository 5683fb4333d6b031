import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../test/support/open-test-store.js';
import { newTurn, thread } from '../../test/support/store-rows.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { checkPagesInBackground } from './check-pages.js';
import { latestSchemaVersion, type Migration, migrations } from './migrations.js';
import { openDatabase } from './open-database.js';
import { createSqliteStore } from './sqlite/create-sqlite-store.js';
import { DatabaseCorruptError, DatabaseTooNewError } from './store-errors.js';

/** What `work` threw; a test that expected a refusal fails if nothing was thrown. */
function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal, but it opened');
}

function floorOf(db: Database.Database): unknown {
  return db.prepare(`SELECT value FROM holdfast_meta WHERE key = 'compatible_from_schema'`).pluck().get();
}

describe('openDatabase refuses a file it cannot safely use', () => {
  const future = (compatibleFrom?: number): Migration[] => [
    ...migrations,
    {
      version: latestSchemaVersion + 1,
      description: 'a later release',
      sql: 'CREATE TABLE later (x)',
      compatibleFrom,
    },
  ];

  async function fileFromLaterRelease(compatibleFrom?: number): Promise<string> {
    const file = tempDir().file('holdfast.db');
    const db = openDatabase(file, { migrations: future(compatibleFrom) });
    await createSqliteStore(db).turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    db.close();
    return file;
  }

  it('refuses a file from a newer schema that does not declare this release compatible', async () => {
    const file = await fileFromLaterRelease();
    const refused = thrownBy(() => openDatabase(file));
    expect(refused).toBeInstanceOf(DatabaseTooNewError);
    expect(refused).toMatchObject({
      code: 'database_too_new',
      file,
      fileVersion: latestSchemaVersion + 1,
      supportedVersion: latestSchemaVersion,
    });
    expect((refused as Error).message).toContain(file);
  });

  it('opens a file from a newer schema whose compatibility floor is at or below this release', async () => {
    const file = await fileFromLaterRelease(latestSchemaVersion);
    const { store, db } = openTestStore(file);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion + 1);
    expect(floorOf(db)).toBe(String(latestSchemaVersion));
    const claim = await store.turns.claim('turn-1', { owner: 'proc-old', durationMs: 60_000 });
    expect(claim).toMatchObject({ type: 'claimed', mode: 'start' });
  });

  it('refuses a file whose recorded floor is above this release', async () => {
    const file = await fileFromLaterRelease(latestSchemaVersion + 1);
    expect(() => openDatabase(file)).toThrow(DatabaseTooNewError);
  });

  it('refuses an empty file instead of starting afresh on top of it', () => {
    const file = tempDir().file('holdfast.db');
    fs.writeFileSync(file, '');
    expect(() => openDatabase(file)).toThrow(DatabaseCorruptError);
    expect(() => openDatabase(file)).toThrow(file);
    expect(fs.statSync(file).size).toBe(0);
  });

  it('refuses a file that is not a database', () => {
    const file = tempDir().file('holdfast.db');
    fs.writeFileSync(file, 'not a database, just some text that happens to sit here\n'.repeat(200));
    expect(() => openDatabase(file)).toThrow(DatabaseCorruptError);
  });

  it('stops at start-up on a file with damaged pages, naming the file', async () => {
    const file = tempDir().file('holdfast.db');
    const db = openDatabase(file);
    const store = createSqliteStore(db);
    for (let i = 0; i < 100; i += 1) {
      await store.audit.record({ actor: 'U1', kind: 'tool.started', data: { i, pad: 'x'.repeat(1_000) } });
    }
    const pageSize = Number(db.pragma('page_size', { simple: true }));
    db.close();
    const pages = fs.statSync(file).size / pageSize;
    const handle = fs.openSync(file, 'r+');
    fs.writeSync(handle, Buffer.alloc(16, 0xff), 0, 16, Math.floor(pages / 2) * pageSize);
    fs.closeSync(handle);
    const refused = thrownBy(() => openDatabase(file));
    expect(refused).toBeInstanceOf(DatabaseCorruptError);
    expect(refused).toMatchObject({ code: 'database_corrupt', file });
    expect((refused as Error).message).toContain(file);

    // A file too big to read before serving is checked just after, off the event loop: same finding.
    const found = await checkPagesInBackground(file);
    expect(found).toBeInstanceOf(DatabaseCorruptError);
    expect(found?.message).toContain('damaged pages');
    const skipped = openDatabase(file, { pageCheck: 'skip' });
    skipped.close();
  });

  it('finds nothing wrong with a sound file in the background check', async () => {
    const file = tempDir().file('holdfast.db');
    openDatabase(file).close();
    await expect(checkPagesInBackground(file)).resolves.toBeUndefined();
  });
});

describe('openDatabase on a new file', () => {
  it('creates the latest schema with its compatibility floor, and opens it again unchanged', () => {
    const file = tempDir().file('holdfast.db');
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    // Version 8 keys a card by its request too: releases before it name the old key, so none may run on
    // it; versions 9 and 10 change nothing a release of version 8 reads.
    expect(latestSchemaVersion).toBe(10);
    expect(floorOf(db)).toBe('8');
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    const again = openDatabase(file);
    expect(again.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    again.close();
  });

  it('creates it with 1 KiB pages, and keeps the page size of a file made before', () => {
    const dir = tempDir();
    const fresh = openDatabase(dir.file('new.db'));
    expect(fresh.pragma('page_size', { simple: true })).toBe(1024);
    fresh.close();

    // A file from an earlier release: 4 KiB pages, some of its rows written.
    const earlierFile = dir.file('earlier.db');
    const earlier = new Database(earlierFile);
    earlier.pragma('page_size = 4096');
    earlier.pragma('journal_mode = WAL');
    earlier.exec('CREATE TABLE kept (note TEXT)');
    earlier.prepare('INSERT INTO kept (note) VALUES (?)').run('from before');
    earlier.close();

    const reopened = openDatabase(earlierFile);
    expect(reopened.pragma('page_size', { simple: true })).toBe(4096);
    expect(reopened.prepare('SELECT note FROM kept').pluck().all()).toEqual(['from before']);
    expect(reopened.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
    reopened.close();
  });
});
