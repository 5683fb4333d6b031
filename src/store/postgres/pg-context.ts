import type { Pool, PoolClient } from 'pg';
import { type TurnHolderRow, toTurnHolder } from '../rows/turn-row.js';
import { checkHolder, type TurnHolder } from '../rules/turn-writes.js';
import type { Fence } from '../store.js';
import { pgCode, retriedCodes, translatePgError } from './pg-errors.js';
import { StatementBatch } from './pg-statement-batch.js';

export interface PgContext {
  readonly pool: Pool;
  /**
   * The clock leases, expiry and timestamps follow. Undefined in production: every transaction then reads
   * the database server's clock, so replicas on machines whose clocks drift still agree on who holds what.
   * Tests pass their fake clock.
   */
  readonly clock?: () => number;
  /** Called after each commit of a write transaction (the benchmark counts them). */
  readonly onCommit?: () => void;
}

/** One transaction's connection, with the moment it runs at. */
export interface Tx {
  /**
   * The transaction's moment. Known once the transaction's first answered statement is back (`BEGIN`
   * travels with it): read it after the first `rows`, `one`, `run` or `tryLockConversation`.
   */
  readonly now: number;
  /**
   * The moment as SQL, for a statement sent before `now` is known (the server's clock, or the test
   * clock as a literal); it may read a few microseconds later than `now`.
   */
  readonly nowSql: string;
  /** Begins at once (one round trip), for work whose first statement binds `now`. */
  start(): Promise<void>;
  rows<Row>(text: string, values?: readonly unknown[]): Promise<Row[]>;
  one<Row>(text: string, values?: readonly unknown[]): Promise<Row | undefined>;
  /** Rows the statement changed. */
  run(text: string, values?: readonly unknown[]): Promise<number>;
  /**
   * Several statements sent as one message, in order, each with its own snapshot; answers each one's
   * rows. For reads that follow a write or a lock whose answer is wanted too.
   */
  each(
    statements: ReadonlyArray<{ readonly text: string; readonly values: readonly unknown[] }>,
  ): Promise<Array<{ readonly rows: unknown[]; readonly rowCount: number }>>;
  /**
   * A statement whose answer nobody reads: it runs in order, in this transaction, sent with the next
   * statement that is answered or with COMMIT. Its failure fails the transaction at that point.
   */
  later(text: string, values?: readonly unknown[]): void;
  /**
   * Serialises this transaction with every other one that touches the same thread, until it ends. Every
   * decision that reads the thread's other turns or requests (claims, decisions, suspension) takes it
   * first, so two replicas never both read "one request left" or "the thread is idle". Sent with the next
   * statement (each statement reads its own snapshot, taken after the lock is held).
   */
  lockConversation(conversationId: string): void;
  /**
   * Orders the admission of one person's turns across threads and replicas, taken after the thread's
   * lock: nothing else takes it, so it cannot close a cycle of waits.
   */
  lockPerson(userId: string): void;
  /** The same lock if nobody holds it; false at once otherwise (a sweep skips a thread in use). */
  tryLockConversation(conversationId: string): Promise<boolean>;
  /** Tells listening replicas once the transaction commits (and only if it does). */
  notify(channel: string, payload: string): void;
  /**
   * Runs a step after the work and just before COMMIT, in the order given: a step that takes a lock
   * every writer shares (the audit chain's) then holds it for the shortest time, and takes it last, so it
   * never waits on a lock while others wait on it.
   */
  beforeCommit(step: () => Promise<void>): void;
}

const nowSql = `(extract(epoch from clock_timestamp()) * 1000)::bigint`;

const maxAttempts = 4;

export async function transaction<Result>(
  context: PgContext,
  work: (tx: Tx) => Promise<Result>,
): Promise<Result> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await attemptTransaction(context, work);
    } catch (error) {
      if (attempt < maxAttempts && retriedCodes.has(pgCode(error) ?? '')) continue;
      throw translatePgError(error);
    }
  }
}

async function attemptTransaction<Result>(
  context: PgContext,
  work: (tx: Tx) => Promise<Result>,
): Promise<Result> {
  const client = await connect(context.pool);
  let broken: Error | undefined;
  // A connection lost mid-transaction (a failover, a server restart) is emitted as an event as well as
  // failing the query; unheard, that event would end the process.
  const lost = (error: Error) => {
    broken = error;
  };
  client.on('error', lost);
  const batch = new StatementBatch(client, context.clock);
  try {
    const steps: Array<() => Promise<void>> = [];
    const result = await work(txOn(batch, steps, context.clock));
    for (const step of steps) await step();
    if (await batch.finish('COMMIT')) context.onCommit?.();
    return result;
  } catch (error) {
    try {
      if (batch.sent) await client.query('ROLLBACK');
    } catch (rollbackError) {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}

const lockSql = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))';

function txOn(
  batch: StatementBatch,
  steps: Array<() => Promise<void>>,
  clock: (() => number) | undefined,
): Tx {
  return {
    get now() {
      return batch.now;
    },
    get nowSql() {
      return clock ? `${Math.trunc(clock())}::bigint` : nowSql;
    },
    beforeCommit(step) {
      steps.push(step);
    },
    start: () => batch.start(),
    async rows<Row>(text: string, values: readonly unknown[] = []) {
      return (await batch.answer(text, values)).rows as Row[];
    },
    async one<Row>(text: string, values: readonly unknown[] = []) {
      return (await batch.answer(text, values)).rows[0] as Row | undefined;
    },
    async run(text, values = []) {
      return (await batch.answer(text, values)).rowCount ?? 0;
    },
    async each(statements) {
      return (await batch.answerEach(statements)).map((answer) => ({
        rows: answer.rows as unknown[],
        rowCount: answer.rowCount ?? 0,
      }));
    },
    later(text, values = []) {
      batch.later(text, values);
    },
    lockConversation(conversationId) {
      batch.later(lockSql, [conversationId]);
    },
    lockPerson(userId) {
      batch.later(lockSql, [`person:${userId}`]);
    },
    async tryLockConversation(conversationId) {
      const result = await batch.answer(
        'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked',
        [conversationId],
      );
      return result.rows[0]?.locked === true;
    },
    notify(channel, payload) {
      batch.later('SELECT pg_notify($1, $2)', [channel, payload]);
    },
  };
}

/** A read outside any transaction: one statement, its own snapshot. */
export async function read<Row>(
  context: PgContext,
  text: string,
  values: readonly unknown[] = [],
): Promise<Row[]> {
  try {
    return (await context.pool.query(text, values as unknown[])).rows as Row[];
  } catch (error) {
    throw translatePgError(error);
  }
}

/**
 * A write that is one statement, committed on its own: a third of the round trips of a transaction.
 * `now` is the SQL for the moment it runs at (the server's clock, or the test clock as a literal); the
 * statement carries its guards in its WHERE clause like every other write.
 */
export async function autocommit<Row>(
  context: PgContext,
  build: (now: string) => { readonly text: string; readonly values: readonly unknown[] },
): Promise<{ rows: Row[]; changed: number }> {
  const now = context.clock ? `${Math.trunc(context.clock())}::bigint` : statementNowSql;
  const { text, values } = build(now);
  try {
    const result = await context.pool.query(text, values as unknown[]);
    context.onCommit?.();
    return { rows: result.rows as Row[], changed: result.rowCount ?? 0 };
  } catch (error) {
    throw translatePgError(error);
  }
}

/** The statement's own start: the same value however often a statement reads it. */
const statementNowSql = `(extract(epoch from statement_timestamp()) * 1000)::bigint`;

/**
 * The current time as SQL, for a read that compares against it: the statement's own start on the
 * server's clock (one value however often the statement reads it), or the test clock as a literal.
 * Saves the round trip of asking for the time first.
 */
export function momentSql(context: PgContext): string {
  return context.clock ? `${Math.trunc(context.clock())}::bigint` : statementNowSql;
}

async function connect(pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw translatePgError(error);
  }
}

/**
 * The fence every write made for a turn passes first. `FOR NO KEY UPDATE` locks the turn's row until
 * commit: a takeover waits for this write to finish and a write that waits for a takeover sees the new
 * token, so a process that lost the turn changes nothing (invariant 6). Rows that merely reference the
 * turn (its messages) are not held up. Returns the turn's conversation.
 */
export async function checkFence(tx: Tx, fence: Fence): Promise<string> {
  return checkHolder(await holderOf(tx, fence.turnId), fence).conversationId;
}

/** Who holds a turn, its row locked until commit (see `checkFence`), for its fence to be checked against. */
export async function holderOf(tx: Tx, turnId: string): Promise<TurnHolder | undefined> {
  return toTurnHolder(
    await tx.one<TurnHolderRow>(
      'SELECT conversation_id, status, lease_owner, lease_token FROM turns WHERE id = $1 FOR NO KEY UPDATE',
      [turnId],
    ),
  );
}
