import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresTestUrl } from '../../../test/support/postgres-test-database.js';
import { inlineParameters } from './inline-parameters.js';

describe('inlineParameters', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: postgresTestUrl() });
    await client.connect();
  });
  afterAll(() => client.end());

  const inlined = async (text: string, values: readonly unknown[]) =>
    (await client.query(inlineParameters(text, values))).rows;

  it('reads back every string exactly as bound, whatever quotes, backslashes or SQL it holds', async () => {
    const strings = [
      '',
      "it's",
      "''",
      '\\',
      "\\'; DROP TABLE turns; --",
      "'); SELECT pg_sleep(10); --",
      '$1 $2 $$ $tag$',
      '"quoted" \\"escaped\\"',
      'line\nbreak\ttab',
      'ünïcødé ✓ 🎉',
      '{"json": "with \\"quotes\\" and \\\\ slashes"}',
    ];
    for (const value of strings) {
      const bound = (await client.query('SELECT $1::text AS v', [value])).rows;
      expect(await inlined('SELECT $1::text AS v', [value])).toEqual(bound);
    }
  });

  it('resolves numbers, booleans, nulls and arrays from their context as bound parameters do', async () => {
    const text = `SELECT $1::bigint + 1 AS n, $2::boolean AS b, $3::text IS NULL AS missing,
      $4::bigint[] AS ids, $5::text[] AS names, (SELECT count(*) FROM generate_series(1, 10) LIMIT $6) AS limited`;
    const values = [41, true, null, [1, 2, 3], ['a', 'b"c', 'd\\e', "f'g"], 5];
    expect(await inlined(text, values)).toEqual((await client.query(text, values)).rows);
  });

  it('leaves placeholders inside quoted strings, quoted identifiers and comments alone', () => {
    expect(inlineParameters(`SELECT '$1' AS "$2", $1 -- $2\n, 'it''s $1'`, ['x'])).toBe(
      `SELECT '$1' AS "$2", 'x' -- $2\n, 'it''s $1'`,
    );
  });

  it('refuses what it cannot write as a literal: a NUL, a missing value, an object', () => {
    expect(() => inlineParameters('SELECT $1', ['a\u0000b'])).toThrow(/NUL/);
    expect(() => inlineParameters('SELECT $2', ['a'])).toThrow(/binds 1/);
    expect(() => inlineParameters('SELECT $1', [{ a: 1 }])).toThrow(/object/);
    expect(() => inlineParameters('SELECT $1', [Number.NaN])).toThrow(/NaN/);
  });
});
