import { describeError } from '../errors.js';
import { postgresTarget } from '../store/postgres/postgres-url.js';
import { type CheckOutcome, ok, problem, type StartupCheck } from './startup-check.js';

export interface PostgresCheckOptions {
  readonly url: string;
  /** Connects once and runs a trivial query; throws what the driver threw. Injected in tests. */
  readonly connect?: (url: string) => Promise<void>;
}

/**
 * Whether holdfast can use the PostgreSQL server HOLDFAST_DB names: reachable, the credentials accepted,
 * the database there. Says which of these failed, naming the variable and never the password.
 */
export function postgresCheck(options: PostgresCheckOptions): StartupCheck {
  return {
    name: 'database',
    async run() {
      const target = postgresTarget(options.url);
      try {
        await (options.connect ?? connectOnce)(options.url);
      } catch (error) {
        return describeFailure(target, options.url, error);
      }
      return ok(`PostgreSQL at ${target} accepts holdfast's connection`);
    },
  };
}

async function connectOnce(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  // A failure after connecting (the server going away) must not surface as an unhandled 'error'.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

const unreachable = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
]);

function describeFailure(target: string, url: string, error: unknown): CheckOutcome {
  const code = (error as { code?: unknown }).code;
  const detail = describeError(error);
  const user = userOf(url);
  if (code === '28P01' || code === '28000') {
    return problem(
      `HOLDFAST_DB: the PostgreSQL server at ${target} refused ${user ? `the user "${user}"` : 'the connection'} (${detail})`,
      'Check the user and password in HOLDFAST_DB (percent-encode special characters in the password), and that the server lets this user connect from here (pg_hba.conf).',
    );
  }
  if (code === '3D000') {
    return problem(
      `HOLDFAST_DB: the database in ${target} does not exist on that server (${detail})`,
      'Create it (for example `createdb`), or correct the database name at the end of HOLDFAST_DB.',
    );
  }
  if ((typeof code === 'string' && unreachable.has(code)) || /timeout|terminated/i.test(detail)) {
    return problem(
      `HOLDFAST_DB: cannot reach the PostgreSQL server at ${target} (${typeof code === 'string' ? code : detail})`,
      'Check the host and port in HOLDFAST_DB, that the server is running, and that this machine may connect to it (firewall, security group).',
    );
  }
  return problem(
    `HOLDFAST_DB: the PostgreSQL server at ${target} could not be used (${detail})`,
    'Check HOLDFAST_DB; with TLS, the sslmode in the URL must match what the server offers.',
  );
}

function userOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).username) || undefined;
  } catch {
    return undefined;
  }
}
