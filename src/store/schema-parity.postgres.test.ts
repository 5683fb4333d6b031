import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { postgresTestSchema } from '../../test/support/postgres-test-database.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { openDatabase } from './open-database.js';
import { createSqliteStore } from './sqlite/create-sqlite-store.js';

// The schema is written twice, once per dialect (SQLite's migrations and PostgreSQL's). This holds the
// two to one shape: the same tables, the same columns with the same nullability, and the same indexes
// (by their columns and uniqueness), so a field added to one and forgotten in the other fails here.

interface SchemaShape {
  readonly tables: Record<string, { columns: Record<string, 'null' | 'not null'>; indexes: string[] }>;
}

/**
 * Columns PostgreSQL has and SQLite does not need: these tables are read in the order rows were written,
 * which SQLite keeps as the rowid every table has, and PostgreSQL as a column.
 */
const insertionOrder = new Set([
  'approval_cards',
  'approval_votes',
  'approvals',
  'inbound_messages',
  'tool_executions',
]);

/** Tables that exist in one engine only, each for a reason of that engine. */
const engineOnly = {
  // SQLite keeps the migration version in PRAGMA user_version; PostgreSQL needs a table for it.
  postgres: new Set(['schema_migrations']),
  sqlite: new Set<string>(),
};

function sqliteShape(file: string): SchemaShape {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db
      .prepare<[], { name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      )
      .all()
      .map((row) => row.name)
      .filter((name) => !engineOnly.sqlite.has(name));
    const shape: SchemaShape['tables'] = {};
    for (const table of tables) {
      const columns = db
        .prepare<[], { name: string; notnull: number; pk: number }>(`PRAGMA table_info(${table})`)
        .all();
      const indexes = db
        .prepare<[], { name: string; unique: number; origin: string }>(`PRAGMA index_list(${table})`)
        .all()
        .map((index) => {
          const parts = db
            .prepare<[], { name: string | null }>(`PRAGMA index_info(${index.name})`)
            .all()
            .map((part) => part.name ?? '(expression)');
          return `${index.unique ? 'unique ' : ''}(${parts.join(', ')})`;
        });
      const primaryKey = columns.filter((column) => column.pk > 0).map((column) => column.name);
      // A rowid primary key has no index of its own in SQLite; PostgreSQL indexes every primary key.
      if (primaryKey.length > 0 && !indexes.includes(`unique (${primaryKey.join(', ')})`))
        indexes.push(`unique (${primaryKey.join(', ')})`);
      shape[table] = {
        columns: Object.fromEntries(
          columns.map((column) => [
            column.name,
            column.notnull || column.pk > 0 ? ('not null' as const) : ('null' as const),
          ]),
        ),
        indexes: [...new Set(indexes)].sort(),
      };
    }
    return { tables: shape };
  } finally {
    db.close();
  }
}

async function postgresShape(
  query: <Row>(text: string, values?: readonly unknown[]) => Promise<Row[]>,
  schema: string,
): Promise<SchemaShape> {
  const columns = await query<{ table_name: string; column_name: string; is_nullable: string }>(
    `SELECT table_name, column_name, is_nullable FROM information_schema.columns
     WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
    [schema],
  );
  const indexes = await query<{ table_name: string; unique: boolean; columns: string[] }>(
    `SELECT t.relname AS table_name, i.indisunique AS unique,
            ARRAY(SELECT COALESCE(a.attname::text, '(expression)')
                  FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, n)
                  LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                  ORDER BY k.n) AS columns
     FROM pg_index i
     JOIN pg_class t ON t.oid = i.indrelid
     JOIN pg_namespace ns ON ns.oid = t.relnamespace
     WHERE ns.nspname = $1`,
    [schema],
  );
  const shape: SchemaShape['tables'] = {};
  for (const column of columns) {
    if (engineOnly.postgres.has(column.table_name)) continue;
    shape[column.table_name] ??= { columns: {}, indexes: [] };
    (shape[column.table_name] as SchemaShape['tables'][string]).columns[column.column_name] =
      column.is_nullable === 'YES' ? 'null' : 'not null';
  }
  for (const index of indexes) {
    const table = shape[index.table_name];
    if (!table) continue;
    table.indexes.push(`${index.unique ? 'unique ' : ''}(${index.columns.join(', ')})`);
  }
  for (const table of Object.values(shape)) table.indexes = [...new Set(table.indexes)].sort();
  return { tables: shape };
}

/** Every way the PostgreSQL schema departs from the SQLite one, one line each. */
function differences(sqlite: SchemaShape, postgres: SchemaShape): string[] {
  const lines: string[] = [];
  for (const [name, table] of Object.entries(sqlite.tables)) {
    const other = postgres.tables[name];
    if (!other) continue;
    for (const column of new Set([...Object.keys(table.columns), ...Object.keys(other.columns)])) {
      if (column === 'seq' && insertionOrder.has(name) && table.columns.seq === undefined) continue;
      const [left, right] = [table.columns[column], other.columns[column]];
      if (left !== right)
        lines.push(`${name}.${column}: sqlite ${left ?? 'missing'}, postgres ${right ?? 'missing'}`);
    }
    for (const index of table.indexes)
      if (!other.indexes.includes(index)) lines.push(`${name} index ${index}: sqlite only`);
    for (const index of other.indexes)
      if (!table.indexes.includes(index)) lines.push(`${name} index ${index}: postgres only`);
  }
  return lines;
}

describe('the schema, on both engines', () => {
  it('has the same tables, columns, nullability and indexes after every migration', async () => {
    const file = tempDir('holdfast-schema-').file('holdfast.db');
    const sqlite = createSqliteStore(openDatabase(file));
    await sqlite.close();
    const database = postgresTestSchema();
    await database.open();

    const fromSqlite = sqliteShape(file);
    const fromPostgres = await postgresShape(database.query, database.schema);

    expect(Object.keys(fromPostgres.tables).sort()).toEqual(Object.keys(fromSqlite.tables).sort());
    expect(differences(fromSqlite, fromPostgres)).toEqual([]);
  });
});
