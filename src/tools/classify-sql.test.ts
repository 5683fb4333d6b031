import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifySql } from './classify-sql.js';

const quote = (text: string) => `'${text.replaceAll("'", "''")}'`;

describe('classifySql', () => {
  it('never reads a keyword or a statement boundary inside a string literal or a comment', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(classifySql(`SELECT ${quote(text)} AS value`)).toEqual({ type: 'read' });
        expect(classifySql(`SELECT 1 /* ${text.replaceAll('*/', '')} */`)).toEqual({ type: 'read' });
        expect(classifySql(`SELECT 1 -- ${text.replaceAll('\n', ' ')}`)).toEqual({ type: 'read' });
      }),
    );
  });

  it.each([
    ['SELECT 1; ATTACH x AS y', { type: 'several', count: 2 }],
    ["SELECT ';' ; ; ", { type: 'read' }],
    ['/* only a comment */', { type: 'unknown' }],
    ['SELEC 1', { type: 'unknown' }],
    ['"SELECT" 1', { type: 'unknown' }],
    ['WITH x AS (SELECT 1)', { type: 'unknown' }],
    ['WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM x) SELECT n FROM x', { type: 'read' }],
    ['WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x', { type: 'change', reason: 'INSERT changes data' }],
    [
      'SELECT [load_extension](1)',
      { type: 'change', reason: 'load_extension loads native code into holdfast' },
    ],
    ['SELECT load_extension FROM t', { type: 'read' }],
    ['PRAGMA "table_info"(t)', { type: 'read' }],
    ['PRAGMA user_version(3)', { type: 'change', reason: 'PRAGMA user_version in this form sets a value' }],
    ['EXPLAIN QUERY PLAN PRAGMA table_list', { type: 'read' }],
  ] as const)('%s → %j', (sql, expected) => {
    expect(classifySql(sql)).toEqual(expected);
  });
});
