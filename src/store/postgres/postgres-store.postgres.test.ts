import { describe, expect, it } from 'vitest';
import { postgresInspector, postgresTestSchema } from '../../../test/support/postgres-test-database.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { newTurn, startTurn, suspendWithRequests, thread } from '../contract/contract-fixtures.js';
import { type ContractDatabase, describeStoreContract } from '../contract/store-contract.js';
import { conversationId } from '../conversation-id.js';
import { latestSchemaVersion } from '../migrations.js';
import type { Store, WorkNotice } from '../store.js';
import { DatabaseTooNewError, StoreUnavailableError } from '../store-errors.js';
import { postgresMigrations } from './pg-migrations.js';

/** A fresh schema for one test; every store on it shares the test's clock. */
async function openPostgresContractDatabase(): Promise<ContractDatabase> {
  const clock = createTestClock();
  const database = postgresTestSchema();
  let first: Store = await database.open({ clock: clock.now });
  return {
    clock,
    get store() {
      return first;
    },
    inspect: postgresInspector(database.query),
    openAnother: () => database.open({ clock: clock.now }),
    async restart() {
      await first.close();
      first = await database.open({ clock: clock.now });
      return first;
    },
  };
}

describe('PostgreSQL store', () => {
  describeStoreContract(openPostgresContractDatabase);
});

describe('PostgreSQL store, what only this adapter has', () => {
  it('numbers its schema like the SQLite one: the same latest version', () => {
    expect(postgresMigrations.at(-1)?.version).toBe(latestSchemaVersion);
  });

  it('migrates once when several replicas start together, and records the version and its floor', async () => {
    const database = postgresTestSchema();
    await Promise.all([database.open(), database.open(), database.open()]);
    expect(await database.query('SELECT key, value FROM holdfast_meta ORDER BY key')).toEqual([
      // Version 8 keys a card by its request too; older releases name the old key (as in SQLite).
      { key: 'compatible_from_schema', value: '8' },
      { key: 'schema_version', value: String(latestSchemaVersion) },
    ]);
  });

  it('refuses a database a newer release migrated past what this one knows, unless it says it still fits', async () => {
    const database = postgresTestSchema();
    await database.open();
    await database.query("UPDATE holdfast_meta SET value = '99' WHERE key = 'schema_version'");
    await database.query("UPDATE holdfast_meta SET value = '99' WHERE key = 'compatible_from_schema'");
    const refused = await database.open().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DatabaseTooNewError);
    expect(String((refused as Error).message)).not.toContain(new URL(database.url).password);
    await database.query(
      `UPDATE holdfast_meta SET value = '${latestSchemaVersion}' WHERE key = 'compatible_from_schema'`,
    );
    await expect(database.open()).resolves.toBeDefined();
  });

  it('times leases by the database server when given no clock', async () => {
    const database = postgresTestSchema();
    const store = await database.open();
    const serverNow = async () =>
      Number(
        (await database.query<{ now: string }>('SELECT (extract(epoch from now()) * 1000)::bigint AS now'))[0]
          ?.now,
      );
    const before = await serverNow();
    const { fence } = await startTurn(store, { lease: { owner: 'proc-a', durationMs: 60_000 } });
    const after = await serverNow();
    const turn = await store.turns.get(fence.turnId);
    expect(turn?.leaseExpiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(turn?.leaseExpiresAt).toBeLessThanOrEqual(after + 60_000);
  });

  it('fails a write whose connection is cut mid-transaction as unavailable, and writes again afterwards', async () => {
    const database = postgresTestSchema();
    const store = await database.open({ clock: createTestClock().now });
    const key = thread('1700.9');
    // Another session holds the thread, so the write waits inside its transaction; then its connection goes.
    const holder = await database.connection();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [conversationId(key)]);
    const write = store.turns.enqueue(newTurn(key, 'turn-cut')).catch((error: unknown) => error);
    // The write's session, found by the lock it waits for (advisory keys are shared by every schema).
    const waiting = `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
      AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`;
    await expect.poll(() => database.query(waiting, [conversationId(key)])).toHaveLength(1);
    await database.query(`SELECT pg_terminate_backend(pid) FROM (${waiting}) w`, [conversationId(key)]);
    const refused = await write;
    await holder.query('ROLLBACK');
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect(await store.turns.get('turn-cut')).toBeUndefined();
    expect(await store.turns.enqueue(newTurn(key, 'turn-cut'))).toMatchObject({ type: 'enqueued' });
  });

  it('tells the other replicas at once when a turn is given back', async () => {
    const database = postgresTestSchema();
    const clock = createTestClock();
    const holder = await database.open({ clock: clock.now });
    const listener = await database.open({ clock: clock.now });
    const heard: WorkNotice[] = [];
    const arrived = new Promise<void>((resolve) => {
      listener.notices?.subscribe((notice) => {
        if (notice.turnId !== 'turn-released') return;
        heard.push(notice);
        resolve();
      });
    });
    const { fence, conversationId } = await startTurn(holder, { turnId: 'turn-released' });
    await holder.turns.release(fence);
    await arrived;
    expect(heard).toEqual([{ conversationId, turnId: 'turn-released', event: 'released' }]);
  });

  it('lets replicas racing for a grant make it once and spend each of its uses once', async () => {
    const database = postgresTestSchema();
    const clock = createTestClock();
    const replicas = await Promise.all([1, 2, 3].map(() => database.open({ clock: clock.now })));
    const grant = {
      scope: 'conversation' as const,
      scopeId: 'T1:C1:1700.1',
      match: { command: 'uptime' },
      maxUses: 2,
    };
    // Three requests of one turn, each decided "always" with the same grant on its own replica at once.
    const first = replicas[0] as Store;
    const started = await startTurn(first);
    const requests = await suspendWithRequests(
      first,
      started,
      replicas.map((_, index) => ({ toolCallId: `call_ask_${index}`, createdAt: clock.now() })),
    );
    const decided = await Promise.all(
      replicas.map((replica, index) =>
        replica.approvals.resolve({
          requestId: requests[index]?.requestId ?? '',
          decision: 'allowed',
          decidedBy: 'U1',
          always: true,
          grant,
        }),
      ),
    );
    expect(decided.map((each) => each.type)).toEqual(['decided', 'decided', 'decided']);
    const made = await first.grants.list({ conversationId: grant.scopeId });
    expect(made).toHaveLength(1);
    const id = made[0]?.id ?? 0;
    const used = await Promise.all(
      Array.from({ length: 6 }, (_, index) =>
        replicas[index % replicas.length]?.grants.use(id, {
          conversationId: grant.scopeId,
          turnId: 't1',
          toolCallId: `call_${index}`,
        }),
      ),
    );
    expect(used.filter((each) => each !== undefined).map((each) => each?.usesLeft)).toEqual(
      expect.arrayContaining([1, 0]),
    );
    expect(used.filter((each) => each !== undefined)).toHaveLength(2);
    const store = replicas[0] as Store;
    expect(await store.grants.get(id)).toMatchObject({ usesLeft: 0 });
    const kinds = (await store.audit.list()).map((event) => event.kind);
    expect(kinds.filter((kind) => kind === 'grant.created')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'grant.used')).toHaveLength(2);
  });
});
