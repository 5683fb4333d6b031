import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/temp-dir.js';
import { openDatabase } from '../open-database.js';
import { createSqliteStore } from './create-sqlite-store.js';

/** Records the SQL of every statement the store runs, from before it prepares its first one. */
function recordQueries(db: Database.Database): {
  readonly ran: Set<string>;
  reset(): void;
  plan(sql: string): string[];
} {
  const ran = new Set<string>();
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => {
    const statement = prepare(source);
    for (const method of ['all', 'get', 'run', 'iterate'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        ran.add(source);
        return original(...args);
      };
    }
    return statement;
  }) as typeof db.prepare;
  return {
    ran,
    reset: () => ran.clear(),
    // The plan for any argument: parameters become a constant of the same kind of comparison.
    plan: (sql) =>
      (
        prepare(`EXPLAIN QUERY PLAN ${sql.replace(/\?\d*|[@:$][A-Za-z_]\w*/g, '0')}`).all() as Array<{
          detail: string;
        }>
      ).map((row) => row.detail),
  };
}

/** A full scan of a table that keeps history: its cost grows with every turn ever stored. */
const historyScan = /^SCAN (turns|approvals|messages|outbox|audit_events|tool_executions)\b(?! USING)/;

describe('what boot recovery and every sweep read', () => {
  it('reads the open work by index, never by scanning history', async () => {
    const db = openDatabase(tempDir().file('holdfast.db'));
    const queries = recordQueries(db);
    const store = createSqliteStore(db);
    try {
      queries.reset();
      await store.turns.recoverable();
      await store.approvals.expireOverdue(200);
      // The reminder and escalation nudges read the pending requests.
      await store.approvals.pending({ limit: 500 });
      await store.outbox.duePending(500);
      await store.outbox.heldPending(500);
      await store.waiting();
      expect(queries.ran.size).toBeGreaterThanOrEqual(4);
      const scans = [...queries.ran].flatMap((sql) =>
        queries
          .plan(sql)
          .filter((detail) => historyScan.test(detail))
          .map((detail) => `${detail}  ←  ${sql.replace(/\s+/g, ' ').slice(0, 120)}`),
      );
      expect(scans).toEqual([]);
    } finally {
      store.close();
    }
  });
});
