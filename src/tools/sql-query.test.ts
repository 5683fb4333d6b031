import fs from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { toolContext } from '../../test/support/tool-context.js';
import { createSqlQueryTool } from './sql-query.js';
import { sqliteFileFrom } from './sqlite-file.js';

function withDatabase() {
  const file = tempDir().file('team.db');
  const db = new Database(file);
  db.exec(`
    CREATE TABLE services (name TEXT PRIMARY KEY, replicas INTEGER, owner TEXT);
    INSERT INTO services VALUES ('api', 3, 'platform'), ('web', 2, NULL), ('worker', 5, 'data');
  `);
  db.close();
  return { file, tool: createSqlQueryTool({ url: file, maxRows: 2 }) };
}

async function decide(tool: ReturnType<typeof createSqlQueryTool>, sql: string) {
  return tool.permission({ sql }, toolContext());
}

describe('sql_query', () => {
  it.each([
    ['SELECT * FROM services', 'allow'],
    ['  -- a comment first\n select count(*) from services', 'allow'],
    ['WITH doomed AS (SELECT 1) DELETE FROM services', 'ask'],
    ['UPDATE services SET replicas = 0', 'ask'],
    ['DROP TABLE services', 'ask'],
    ['PRAGMA user_version = 7', 'ask'],
    ['PRAGMA user_version', 'allow'],
  ])('%s → %s', async (sql, expected) => {
    const { tool } = withDatabase();
    expect(await decide(tool, sql)).toMatchObject({ type: expected });
  });

  it('asks with permission type sql_write, the statement as summary and the reason', async () => {
    const { tool } = withDatabase();
    expect(await decide(tool, 'DELETE FROM services')).toEqual({
      type: 'ask',
      permissionType: 'sql_write',
      summary: 'run SQL: DELETE FROM services',
      reason: 'DELETE changes data: needs approval',
    });
  });

  it('answers with a compact table and stops at the row cap', async () => {
    const { tool } = withDatabase();
    const result = await tool.execute(
      { sql: 'SELECT name, replicas, owner FROM services ORDER BY name' },
      toolContext(),
    );
    expect(result).toBe(
      [
        'name | replicas | owner',
        '-----|----------|---------',
        'api  | 3        | platform',
        'web  | 2        | NULL',
        '(2+ rows; stopped at 2)',
      ].join('\n'),
    );
  });

  it('runs an approved write and reports the change count', async () => {
    const { tool, file } = withDatabase();
    expect(
      await tool.execute({ sql: "UPDATE services SET replicas = 1 WHERE name = 'web'" }, toolContext()),
    ).toBe('OK: 1 row changed.');
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT replicas FROM services WHERE name = 'web'").pluck().get()).toBe(1);
    db.close();
  });

  it('tells the model about invalid SQL instead of failing', async () => {
    const { tool } = withDatabase();
    expect(await decide(tool, 'SELEC nonsense')).toMatchObject({ type: 'allow' });
    expect(await tool.execute({ sql: 'SELEC nonsense' }, toolContext())).toMatch(/^SQL error: near "SELEC"/);
  });

  it('tells the model when the database cannot be opened, without asking anyone', async () => {
    const { tool, file } = withDatabase();
    fs.rmSync(file);
    expect(await decide(tool, 'SELECT * FROM services')).toMatchObject({ type: 'allow' });
    expect(await tool.execute({ sql: 'SELECT * FROM services' }, toolContext())).toMatch(
      /^SQL error: cannot open the database: /,
    );
  });

  it('reads SQLite URLs and refuses other databases clearly', () => {
    expect(sqliteFileFrom('sqlite:data/team.db', '/srv')).toBe('/srv/data/team.db');
    expect(sqliteFileFrom('file:///var/lib/team.db')).toBe('/var/lib/team.db');
    expect(sqliteFileFrom('file:///var/lib/team.db?mode=ro#x')).toBe('/var/lib/team.db');
    expect(sqliteFileFrom('file:data/team%20db.sqlite?mode=ro', '/srv')).toBe('/srv/data/team db.sqlite');
    expect(() => sqliteFileFrom('postgres://db/team')).toThrow(/postgres:\/\/ is not supported/);
  });
});
