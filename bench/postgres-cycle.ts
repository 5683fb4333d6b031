/**
 * The benchmark's PostgreSQL side (`BENCH_POSTGRES_URL`): the same cycle on the PostgreSQL store, each run
 * in a schema of its own that is dropped afterwards, and the floor it is judged against, a bare
 * single-row commit on the same server measured in the same run.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStore } from '../src/store/postgres/create-postgres-store.js';
import type { AdmissionLimits } from '../src/store/rules/admit-turn.js';
import type { Store } from '../src/store/store.js';
import { buildHarnessOn, type HoldfastHarness } from './holdfast-cycle.js';
import { percentile } from './percentile.js';

export async function buildPostgresHarness(
  url: string,
  options: {
    readonly admission?: AdmissionLimits;
    /** Wraps the store before the runtime sees it (the round-trip counter labels its operations). */
    readonly wrapStore?: (store: Store) => Store;
  } = {},
): Promise<HoldfastHarness> {
  const schema = `holdfast_bench_${randomBytes(6).toString('hex')}`;
  let commits = 0;
  const opened = await openPostgresStore({
    url,
    schema,
    onCommit: () => {
      commits += 1;
    },
  });
  const store = options.wrapStore ? options.wrapStore(opened) : opened;
  const harness = buildHarnessOn(store, {
    admission: options.admission,
    commits: () => commits,
    pendingApprovals: () => Number.NaN,
  });
  return {
    ...harness,
    async close() {
      await harness.close();
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** The floor: one single-row INSERT committed on its own, on one connection, on the same server. */
export async function measurePostgresRawCommits(
  url: string,
  count: number,
): Promise<{ p50: number; p99: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const table = `holdfast_bench_raw_${randomBytes(6).toString('hex')}`;
  try {
    await client.query(
      `CREATE TABLE ${table} (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body TEXT NOT NULL)`,
    );
    const durations: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      await client.query(`INSERT INTO ${table} (body) VALUES ($1)`, [`row ${i}`]);
      durations.push(performance.now() - started);
    }
    return { p50: percentile(durations, 50), p99: percentile(durations, 99) };
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${table}`).catch(() => undefined);
    await client.end();
  }
}
