import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { toolContext } from '../../test/support/tool-context.js';
import { createSqlQueryTool } from './sql-query.js';

/** The team's database and, beside it, a stand-in for holdfast's own file with a transcript in it. */
function databases() {
  const dir = tempDir();
  const team = dir.file('team.db');
  const db = new Database(team);
  db.exec(`
    CREATE TABLE services (name TEXT PRIMARY KEY, replicas INTEGER);
    INSERT INTO services VALUES ('api', 3), ('web', 2);
  `);
  db.close();
  const holdfast = dir.file('holdfast.db');
  const own = new Database(holdfast);
  own.exec(`
    CREATE TABLE messages (conversation_id TEXT, content TEXT);
    INSERT INTO messages VALUES ('T1:CSECRET:1.0', 'the payroll export is in s3://payroll');
  `);
  own.close();
  return { dir, team, holdfast, tool: createSqlQueryTool({ url: team }) };
}

async function decide(tool: ReturnType<typeof createSqlQueryTool>, sql: string) {
  return tool.permission({ sql }, toolContext());
}

describe('sql_query: what runs without approval', () => {
  it.each([
    ['SELECT * FROM services'],
    ['with live as (select * from services where replicas > 0) select name from live'],
    ['VALUES (1), (2)'],
    ['EXPLAIN QUERY PLAN SELECT * FROM services'],
    ['PRAGMA table_info(services)'],
    ['PRAGMA main.index_list("services")'],
    ['PRAGMA table_list'],
    ["SELECT * FROM pragma_table_info('services')"],
    ["SELECT 'ATTACH; PRAGMA x' AS text -- BEGIN; ATTACH 'x'"],
    ['/* ATTACH */ SELECT name FROM services;'],
  ])('allows the plain read %s', async (sql) => {
    const { tool } = databases();
    expect(await decide(tool, sql)).toMatchObject({ type: 'allow' });
  });

  it.each([
    ['DETACH other', 'DETACH changes the connection'],
    ['PRAGMA locking_mode=EXCLUSIVE', 'PRAGMA locking_mode'],
    ['PRAGMA query_only = 0', 'PRAGMA query_only'],
    ['PRAGMA journal_mode', 'PRAGMA journal_mode'],
    ['PRAGMA wal_checkpoint', 'PRAGMA wal_checkpoint'],
    ['PRAGMA table_info = services', 'PRAGMA table_info'],
    ['PRAGMA other.table_info(services)', 'PRAGMA on a database other than the configured one'],
    ['BEGIN', 'transaction control'],
    ['begin exclusive transaction', 'transaction control'],
    ['SAVEPOINT before_cleanup', 'transaction control'],
    ['RELEASE before_cleanup', 'transaction control'],
    ['COMMIT', 'transaction control'],
    ['ROLLBACK', 'transaction control'],
    ['END', 'transaction control'],
    ["VACUUM INTO '/tmp/copy.db'", 'VACUUM INTO writes a copy of the database'],
    ['VACUUM', 'VACUUM rewrites the database file'],
    ['REINDEX', 'REINDEX rebuilds indexes'],
    ['ANALYZE', 'ANALYZE writes statistics'],
    ["SELECT load_extension('/tmp/evil.so')", 'load_extension loads native code'],
    ['SELECT "LOAD_EXTENSION"(\'/tmp/evil.so\')', 'load_extension loads native code'],
    ['WITH doomed AS (SELECT 1) DELETE FROM table_made_later', 'DELETE changes data'],
    ['EXPLAIN DELETE FROM services', 'EXPLAIN of a statement that is not a plain read'],
    ['CREATE TEMP TABLE scratch (x)', 'CREATE changes the schema'],
    ["INSERT INTO not_yet_a_table VALUES ('x')", 'INSERT changes data'],
  ])('asks for %s and says why', async (sql, why) => {
    const { tool } = databases();
    const decision = await decide(tool, sql);
    expect(decision).toMatchObject({ type: 'ask', permissionType: 'sql_write', summary: `run SQL: ${sql}` });
    expect(decision).toHaveProperty('reason', expect.stringContaining(why));
    expect(decision).toHaveProperty('reason', expect.stringMatching(/needs approval$/));
  });

  it("asks before attaching holdfast's own database, whose transcripts it would expose", async () => {
    const { tool, holdfast } = databases();
    for (const sql of [
      `ATTACH '${holdfast}' AS h`,
      `-- just a read\nATTACH DATABASE '${holdfast}' AS h`,
      `/* SELECT */ attach 'file:${holdfast}?mode=ro' as h`,
    ]) {
      expect(await decide(tool, sql)).toEqual({
        type: 'ask',
        permissionType: 'sql_write',
        summary: `run SQL: ${sql}`,
        reason: 'ATTACH changes the connection: needs approval',
      });
    }
  });

  it('refuses several statements in one call before anything is decided', () => {
    const { tool, holdfast } = databases();
    const parsed = tool.parse({ sql: `SELECT 1; ATTACH '${holdfast}' AS h` });
    expect(parsed).toEqual({
      success: false,
      error: expect.stringContaining('sql_query runs one statement per call; this text holds 2'),
    });
    expect(tool.parse({ sql: 'SELECT 1; -- done\n' }).success).toBe(true);
    expect(tool.parse({ sql: "SELECT ';' AS semicolon" }).success).toBe(true);
    expect(
      tool.parse({
        sql: 'CREATE TRIGGER audit AFTER UPDATE ON services BEGIN UPDATE services SET replicas = CASE WHEN 1 THEN 2 END; END',
      }).success,
    ).toBe(true);
  });
});

describe('sql_query: one connection per call', () => {
  it('does not carry an approved ATTACH over to the next call', async () => {
    const { tool, holdfast } = databases();
    expect(await tool.execute({ sql: `ATTACH '${holdfast}' AS h` }, toolContext())).toBe(
      'OK: 0 rows changed.',
    );
    expect(await tool.execute({ sql: 'SELECT content FROM h.messages' }, toolContext())).toBe(
      'SQL error: no such table: h.messages',
    );
  });

  it('leaves no lock behind after an approved locking_mode=EXCLUSIVE and a read', async () => {
    const { tool, team } = databases();
    await tool.execute({ sql: 'PRAGMA locking_mode=EXCLUSIVE' }, toolContext());
    expect(await tool.execute({ sql: 'SELECT count(*) AS n FROM services' }, toolContext())).toContain('2');
    const other = new Database(team, { timeout: 0 });
    expect(other.prepare("UPDATE services SET replicas = 4 WHERE name = 'api'").run().changes).toBe(1);
    other.close();
  });

  it('leaves no transaction open after an approved BEGIN', async () => {
    const { tool, team } = databases();
    await tool.execute({ sql: 'BEGIN IMMEDIATE' }, toolContext());
    const other = new Database(team, { timeout: 0 });
    expect(other.prepare("UPDATE services SET replicas = 4 WHERE name = 'api'").run().changes).toBe(1);
    other.close();
  });

  it('runs reads on a read-only connection, so the file is never written', async () => {
    const { tool, team } = databases();
    const before = fs.readFileSync(team);
    fs.chmodSync(team, 0o444);
    expect(await tool.execute({ sql: 'SELECT name FROM services ORDER BY name' }, toolContext())).toContain(
      'api',
    );
    expect(await tool.execute({ sql: 'PRAGMA table_info(services)' }, toolContext())).toContain('replicas');
    expect(fs.readFileSync(team).equals(before)).toBe(true);
  });
});
