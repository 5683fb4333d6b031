/**
 * Database files written by earlier releases on main, each by that release's own code
 * (`make-corpus.sh` and `make-corpus.driver.ts` beside this file say how, and what each holds): a turn
 * waiting on one request, a turn waiting on two calls of one message, a turn whose call was running
 * when its process died, an "Always allow" grant, and every card and answer still unsent. This release
 * opens each one and must carry all of it on (`expect-old-release-carries-on.ts`). The same releases'
 * PostgreSQL dumps are checked by `upgrade-corpus.postgres.test.ts`.
 */
import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStore, openDatabase } from '../../src/store/index.js';
import { latestSchemaVersion } from '../../src/store/migrations.js';
import { tempDir } from '../support/temp-dir.js';
import { expectOldReleaseCarriesOn } from './expect-old-release-carries-on.js';

const corpus = readdirSync(import.meta.dirname).filter((name) => name.endsWith('.sqlite'));

describe('files written by earlier releases', () => {
  it('holds at least three releases', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(3);
  });

  it.each(corpus)('%s: opens, and everything waiting in it carries on once', async (name) => {
    const file = tempDir('holdfast-upgrade-').file('holdfast.db');
    copyFileSync(join(import.meta.dirname, name), file);
    const before = new Database(file, { readonly: true });
    const unsent = before
      .prepare<[], { key: string }>("SELECT key FROM outbox WHERE status = 'pending'")
      .all()
      .map((row) => row.key);
    const leasesEnd = Number(before.prepare('SELECT max(lease_expires_at) FROM turns').pluck().get());
    before.close();

    await expectOldReleaseCarriesOn({ unsent, leasesEnd }, (now) => {
      const db = openDatabase(file);
      expect(db.pragma('user_version', { simple: true })).toBe(latestSchemaVersion);
      return createSqliteStore(db, { now });
    });
  });
});
