/**
 * The upgrade corpus on PostgreSQL: for each release in it, a `pg_dump` of the database that release's
 * own PostgreSQL store wrote (`make-corpus.sh --postgres`), holding the same scenario as its SQLite file.
 * Each dump is restored into a fresh database on the test server, this release opens it (its migrations
 * run), and everything waiting in it must carry on once, exactly as on SQLite.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { latestSchemaVersion } from '../../src/store/migrations.js';
import { openPostgresStore } from '../../src/store/postgres/create-postgres-store.js';
import { postgresMigrations } from '../../src/store/postgres/pg-migrations.js';
import { postgresTestDatabase } from '../support/postgres-test-database.js';
import { expectOldReleaseCarriesOn } from './expect-old-release-carries-on.js';

const files = readdirSync(import.meta.dirname);
const dumps = files.filter((name) => name.endsWith('.postgres.sql'));
/** Every release in the corpus had a PostgreSQL store (schema 3 on), so each has a dump. */
const releases = files
  .filter((name) => name.endsWith('.sqlite'))
  .map((name) => name.replace(/\.sqlite$/, ''));
const schemaNow = Math.max(postgresMigrations.at(-1)?.version ?? 0, latestSchemaVersion);

describe('PostgreSQL databases written by earlier releases', () => {
  it('holds a dump of every release in the corpus, at least three', () => {
    const missing = releases
      .map((release) => `${release}.postgres.sql`)
      .filter((dump) => !dumps.includes(dump));
    expect(
      missing,
      `missing PostgreSQL dumps: write them with test/upgrade-corpus/make-corpus.sh --postgres <commit>`,
    ).toEqual([]);
    expect(dumps.length).toBeGreaterThanOrEqual(3);
  });

  it.each(dumps)('%s: restores, opens, and everything waiting in it carries on once', async (name) => {
    const database = await postgresTestDatabase();
    // One simple query on a connection of its own: the dump empties its session's search_path.
    const restorer = new pg.Client({ connectionString: database.url });
    await restorer.connect();
    try {
      await restorer.query(readFileSync(join(import.meta.dirname, name), 'utf8'));
    } finally {
      await restorer.end();
    }
    const unsent = (
      await database.query<{ key: string }>("SELECT key FROM outbox WHERE status = 'pending' ORDER BY id")
    ).map((row) => row.key);
    const [leases] = await database.query<{ end: number }>('SELECT max(lease_expires_at) AS end FROM turns');
    const schema = async () =>
      Number(
        (
          await database.query<{ value: string }>(
            "SELECT value FROM holdfast_meta WHERE key = 'schema_version'",
          )
        )[0]?.value,
      );
    expect(await schema()).toBe(Number(/-schema(\d+)\./.exec(name)?.[1]));

    await expectOldReleaseCarriesOn({ unsent, leasesEnd: Number(leases?.end) }, async (now) => {
      const store = await openPostgresStore({ url: database.url, clock: now, poolSize: 4 });
      expect(await schema()).toBe(schemaNow);
      return store;
    });
  });
});
