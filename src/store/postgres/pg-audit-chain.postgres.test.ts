import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { postgresTestDatabase, postgresTestSchema } from '../../../test/support/postgres-test-database.js';
import { auditCommand } from '../../audit/audit-command.js';
import { AuditChainVerifier } from '../../audit/verify-audit-chain.js';
import { auditRowHash } from '../rules/audit-chain.js';
import type { Store } from '../store.js';
import { openPostgresStore } from './create-postgres-store.js';
import { openPostgres } from './open-postgres.js';
import { postgresMigrations } from './pg-migrations.js';

async function verify(store: Store) {
  const verifier = new AuditChainVerifier();
  const events = await store.audit.list({ limit: 10_000 });
  const breaks = events.map((event) => verifier.check(event)).filter((found) => found !== undefined);
  return { events, breaks };
}

function capture(): Writable & { readonly text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}

describe('the PostgreSQL audit chain', () => {
  it('chains the rows a database held before schema 4, oldest first, with the shared rule', async () => {
    const database = postgresTestSchema();
    const old = await openPostgres({
      url: database.url,
      schema: database.schema,
      migrations: postgresMigrations.filter((migration) => migration.version === 3),
    });
    await old.end();
    await database.query(
      `INSERT INTO audit_events (at, actor, kind, approval_id, conversation_id, data_json) VALUES
         (1000, 'U1', 'grant.created', NULL, 'c1', '{"tool":"ops_shell","scope":"conversation"}'),
         (2000, 'U2', 'approval.allowed', 'req-1', 'c1', '{"always":false}'),
         (3000, 'holdfast', 'delivery.failed', 'req-1', NULL, '{}')`,
    );
    const store = await database.open();
    const { events, breaks } = await verify(store);
    expect(breaks).toEqual([]);
    expect(events.map((event) => event.kind)).toEqual([
      'grant.created',
      'approval.allowed',
      'delivery.failed',
    ]);
    let previousHash: string | null = null;
    for (const event of events) {
      expect(event.previousHash).toBe(previousHash);
      expect(event.hash).toBe(auditRowHash(previousHash, event));
      previousHash = event.hash;
    }
    await store.audit.record({ actor: 'U3', kind: 'grant.revoked', data: { tool: 'ops_shell' } });
    const after = await verify(store);
    expect(after.breaks).toEqual([]);
    expect(after.events.at(-1)?.previousHash).toBe(previousHash);
  });

  it('keeps one unbroken chain when several replicas record at the same moment', async () => {
    const database = postgresTestSchema();
    const replicas = await Promise.all([database.open(), database.open(), database.open()]);
    await Promise.all(
      replicas.flatMap((replica, index) =>
        Array.from({ length: 10 }, (_, n) =>
          replica.audit.record({ actor: `replica-${index}`, kind: 'grant.created', data: { n } }),
        ),
      ),
    );
    const { events, breaks } = await verify(replicas[0]!);
    expect(breaks).toEqual([]);
    expect(events).toHaveLength(30);
    expect(new Set(events.map((event) => event.previousHash)).size).toBe(30);
  });

  it('exports and verifies the trail with `holdfast audit`, and finds a row altered in the database', async () => {
    const database = await postgresTestDatabase();
    const store = await openPostgresStore({ url: database.url, poolSize: 2 });
    await store.audit.record({
      actor: 'U1',
      kind: 'grant.created',
      conversationId: 'c1',
      data: { tool: 'a' },
    });
    await store.audit.record({
      actor: 'U2',
      kind: 'grant.revoked',
      conversationId: 'c1',
      data: { tool: 'a' },
    });
    await store.close();
    const run = async (...args: string[]) => {
      const stdout = capture();
      const stderr = capture();
      const code = await auditCommand(args, {
        env: { HOLDFAST_DB: database.url },
        cwd: process.cwd(),
        stdout,
        stderr,
      });
      return { code, stdout: stdout.text(), stderr: stderr.text() };
    };
    const exported = await run('export');
    expect(exported.code).toBe(0);
    expect(
      exported.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).actor),
    ).toEqual(['U1', 'U2']);
    expect(await run('verify')).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('audit trail intact: 2 rows'),
    });
    await database.query(`UPDATE audit_events SET actor = 'U9' WHERE actor = 'U1'`);
    expect(await run('verify')).toMatchObject({
      code: 1,
      stdout: expect.stringContaining('audit trail broken'),
    });
  });
});
