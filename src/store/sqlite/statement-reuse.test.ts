import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { openDatabase } from '../open-database.js';
import { createSqliteStore } from './create-sqlite-store.js';

/**
 * SQLite (3.53) reads the value bound to a bare `LIMIT ?` into the statement's plan, so every run with
 * a binding recompiles the statement: 20–30 µs each, on queries that take 4 µs once compiled.
 */
const bareBoundLimit = /\b(LIMIT|OFFSET)\s+[?@:$]/i;

describe('the statements the SQLite store prepares', () => {
  it('bind no bare LIMIT, so a statement is compiled once and reused', () => {
    const db = openDatabase(tempDir().file('holdfast.db'));
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((source: string) => {
      prepared.push(source);
      return prepare(source);
    }) as typeof db.prepare;
    const store = createSqliteStore(db);
    try {
      expect(prepared.length).toBeGreaterThan(50);
      expect(prepared.filter((sql) => /\bLIMIT\b/i.test(sql)).length).toBeGreaterThan(10);
      const recompiled = prepared
        .filter((sql) => bareBoundLimit.test(sql))
        .map((sql) => sql.replace(/\s+/g, ' '));
      expect(recompiled).toEqual([]);
    } finally {
      store.close();
    }
  });
});
