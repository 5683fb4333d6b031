import pg from 'pg';
import { latestSchemaVersion } from '../migrations.js';
import {
  DatabaseAuthError,
  DatabaseTooNewError,
  DatabaseUnreachableError,
  DatabaseUnreadableError,
} from '../store-errors.js';
import { pgCode } from './pg-errors.js';
import { type PgMigration, postgresMigrations } from './pg-migrations.js';
import { postgresTarget, redactPostgresUrl } from './postgres-url.js';

export interface OpenPostgresOptions {
  readonly url: string;
  /** Connections this process keeps at most (default 10). */
  readonly poolSize?: number;
  /** A schema to work in instead of the user's default one (tests give each test its own). */
  readonly schema?: string;
  readonly migrations?: readonly PgMigration[];
  /** Told about a connection that failed while idle; the pool replaces it. */
  readonly onError?: (error: unknown) => void;
}

/** int8 (times in milliseconds, identities) as numbers: every value holdfast stores is far below 2^53. */
const int8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === int8 && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export function poolConfig(options: OpenPostgresOptions): pg.PoolConfig {
  return {
    connectionString: options.url,
    max: options.poolSize ?? 10,
    types,
    application_name: 'holdfast',
    connectionTimeoutMillis: 10_000,
    // A transaction never waits on a lock for long: a stuck one fails as busy instead of piling up.
    lock_timeout: 15_000,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  };
}

/**
 * Connects to the server named by HOLDFAST_DB and migrates it under an advisory lock, so replicas
 * starting together migrate once. Any reason the database cannot be used stops here with an error
 * naming the server (never the password).
 */
export async function openPostgres(options: OpenPostgresOptions): Promise<pg.Pool> {
  const pool = new pg.Pool(poolConfig(options));
  pool.on('error', (error) => options.onError?.(error));
  try {
    await migrate(pool, options, options.migrations ?? postgresMigrations);
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw classifyOpenError(options.url, error);
  }
}

const metaTable = 'CREATE TABLE IF NOT EXISTS holdfast_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)';
/** The two-key form: its own lock space, apart from the threads' single-key locks. */
const migrationLock = 'SELECT pg_advisory_xact_lock(1752134756, 1)';

async function migrate(
  pool: pg.Pool,
  { url, schema }: OpenPostgresOptions,
  migrations: readonly PgMigration[],
): Promise<void> {
  const target = Math.max(migrations.at(-1)?.version ?? 0, latestSchemaVersion);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(migrationLock);
    if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(metaTable);
    const meta = await client.query<{ key: string; value: string }>('SELECT key, value FROM holdfast_meta');
    const read = (key: string) => {
      const value = Number(meta.rows.find((row) => row.key === key)?.value);
      return Number.isInteger(value) ? value : undefined;
    };
    const current = read('schema_version') ?? 0;
    if (current > target) {
      // A newer release migrated this database; it may declare that releases as old as this one still fit.
      const floor = read('compatible_from_schema') ?? current;
      if (floor > target) throw new DatabaseTooNewError(redactPostgresUrl(url), current, target);
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql);
      await migration.after?.(client);
      await client.query(
        `INSERT INTO holdfast_meta (key, value) VALUES ('schema_version', $1), ('compatible_from_schema', $2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [String(migration.version), String(migration.compatibleFrom ?? migration.version)],
      );
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
]);

function classifyOpenError(url: string, error: unknown) {
  if (error instanceof DatabaseTooNewError) return error;
  const target = postgresTarget(url);
  const code = pgCode(error);
  const detail = error instanceof Error ? error.message : String(error);
  if (code === '28P01' || code === '28000') return new DatabaseAuthError(target, detail, { cause: error });
  if (
    (code && unreachableCodes.has(code)) ||
    code?.startsWith('08') ||
    code === '57P03' ||
    code === '3D000' ||
    /timeout|terminated|self[- ]signed|certificate|SSL/i.test(detail)
  ) {
    return new DatabaseUnreachableError(target, detail, { cause: error });
  }
  return new DatabaseUnreadableError(redactPostgresUrl(url), detail, { cause: error });
}
