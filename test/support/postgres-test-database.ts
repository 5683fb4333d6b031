import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { onTestFinished } from 'vitest';
import type { ContractInspector, ToolExecutionRecord } from '../../src/store/contract/store-contract.js';
import { openPostgresStore } from '../../src/store/postgres/create-postgres-store.js';
import { poolConfig } from '../../src/store/postgres/open-postgres.js';
import { type MessageRow, type OutboxRow, toOutboxEntry, toStored } from '../../src/store/row-mappers.js';
import type { Store } from '../../src/store/store.js';

/**
 * The server the PostgreSQL suite runs against (`npm run test:postgres` starts a throwaway one). Missing,
 * the suite fails: it is run only when asked for, so a missing server is a broken set-up, never a reason
 * to skip.
 */
export function postgresTestUrl(): string {
  const url = process.env.HOLDFAST_TEST_POSTGRES_URL;
  if (!url) {
    throw new Error(
      'HOLDFAST_TEST_POSTGRES_URL is not set: run the PostgreSQL suite with `npm run test:postgres`, which starts a throwaway server',
    );
  }
  return url;
}

/**
 * A fresh schema on the test server for the current test, dropped when the test finishes, with every
 * store opened on it closed first. Returns its name and an opener.
 */
export function postgresTestSchema(): {
  readonly url: string;
  readonly schema: string;
  open(options?: { clock?: () => number; poolSize?: number }): Promise<Store>;
  /** Runs SQL on the schema through a connection of its own (what an operator's psql would see). */
  query<Row>(text: string, values?: readonly unknown[]): Promise<Row[]>;
  /** A session of its own on the schema (to hold a lock across statements); released when the test ends. */
  connection(): Promise<pg.PoolClient>;
} {
  const url = postgresTestUrl();
  const schema = `holdfast_test_${randomBytes(6).toString('hex')}`;
  const stores: Store[] = [];
  let admin: pg.Pool | undefined;
  const adminPool = () => {
    admin ??= new pg.Pool(poolConfig({ url, schema, poolSize: 2 }));
    return admin;
  };
  onTestFinished(async () => {
    for (const store of stores) await store.close();
    await adminPool().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await adminPool().end();
  });
  return {
    url,
    schema,
    async open(options = {}) {
      const store = await openPostgresStore({
        url,
        schema,
        clock: options.clock,
        poolSize: options.poolSize ?? 4,
      });
      stores.push(store);
      return store;
    },
    async query<Row>(text: string, values: readonly unknown[] = []) {
      return (await adminPool().query(text, values as unknown[])).rows as Row[];
    },
    async connection() {
      const client = await adminPool().connect();
      onTestFinished(() => client.release());
      return client;
    },
  };
}

/** What the contract suite looks at beyond the port, read from the schema directly. */
export function postgresInspector(query: <Row>(text: string) => Promise<Row[]>): ContractInspector {
  return {
    async outbox() {
      return (await query<OutboxRow>('SELECT * FROM outbox ORDER BY id')).map((row) =>
        toOutboxEntry({
          ...row,
          id: Number(row.id),
          next_attempt_at: Number(row.next_attempt_at),
          created_at: Number(row.created_at),
          claim_expires_at: row.claim_expires_at === null ? null : Number(row.claim_expires_at),
        }),
      );
    },
    async messages() {
      return (await query<MessageRow>('SELECT * FROM messages ORDER BY seq')).map((row) =>
        toStored({ ...row, seq: Number(row.seq) }),
      );
    },
    async toolExecutions() {
      const rows = await query<ToolExecutionRecord & { startedAt: string; finishedAt: string | null }>(
        `SELECT transcript_id AS "transcriptId", tool_call_id AS "toolCallId", status, started_at AS "startedAt",
           finished_at AS "finishedAt"
         FROM tool_executions ORDER BY started_at, seq`,
      );
      return rows.map((row) => ({
        ...row,
        startedAt: Number(row.startedAt),
        finishedAt: row.finishedAt === null ? null : Number(row.finishedAt),
      }));
    },
  };
}

/**
 * A fresh database on the test server for the current test (processes that connect by URL alone, such as
 * holdfast children, cannot be pointed at a schema), dropped when the test finishes.
 */
export async function postgresTestDatabase(): Promise<{
  readonly url: string;
  query<Row>(text: string, values?: readonly unknown[]): Promise<Row[]>;
}> {
  const adminUrl = postgresTestUrl();
  const name = `holdfast_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const pool = new pg.Pool(poolConfig({ url: url.toString(), poolSize: 2 }));
  onTestFinished(async () => {
    await pool.end();
    const dropper = new pg.Client({ connectionString: adminUrl });
    await dropper.connect();
    await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await dropper.end();
  });
  return {
    url: url.toString(),
    async query<Row>(text: string, values: readonly unknown[] = []) {
      return (await pool.query(text, values as unknown[])).rows as Row[];
    },
  };
}
