import Database from 'better-sqlite3';
import { z } from 'zod';
import type { ToolPermission } from '../agent/tool.js';
import { ToolRefusedError } from '../agent/tool-refused-error.js';
import { classifySql } from './classify-sql.js';
import { defineTool } from './define-tool.js';
import { formatTable } from './format-table.js';
import { refuseHoldfastDatabase, sqliteFileFrom } from './sqlite-file.js';

export interface SqlQueryOptions {
  /** A SQLite file: a path, `sqlite:path` or a `file:` URI. */
  readonly url: string;
  /** holdfast's own database, which `url` must not name (checked at construction). */
  readonly holdfastDatabasePath?: string;
  readonly cwd?: string;
  readonly maxRows?: number;
}

type ConnectionMode = 'read-only' | 'read-write';

const sqlText = z
  .string()
  .min(1)
  .max(20_000)
  .superRefine((sql, ctx) => {
    const kind = classifySql(sql);
    if (kind.type === 'several') ctx.addIssue({ code: 'custom', message: severalStatements(kind.count) });
  });

function severalStatements(count: number): string {
  return `sql_query runs one statement per call; this text holds ${count}. Send them one call at a time.`;
}

/**
 * SQL against the team's database. Only a plain read runs without asking, and it runs on a connection
 * opened read-only (plus `query_only`) for that one call; everything else asks (`sql_write`) with the reason
 * on the card. The decision comes from the statement's tokens (comments and literals cannot hide a
 * keyword), confirmed by SQLite itself (`Statement.readonly`, `reader`, the result columns' database).
 * No connection outlives a call, so an approved ATTACH, BEGIN or locking_mode ends with it.
 */
export function createSqlQueryTool(options: SqlQueryOptions) {
  const file = sqliteFileFrom(options.url, options.cwd);
  if (options.holdfastDatabasePath) refuseHoldfastDatabase(file, options.holdfastDatabasePath);
  const maxRows = options.maxRows ?? 100;

  /** Runs `use` on a connection opened for this call only, and closes it; `onOpenError` if it cannot open. */
  const withConnection = <T>(
    mode: ConnectionMode,
    use: (db: Database.Database) => T,
    onOpenError: (message: string) => T,
  ): T => {
    let db: Database.Database;
    try {
      db = new Database(file, { fileMustExist: true, readonly: mode === 'read-only', timeout: 5_000 });
    } catch (error) {
      return onOpenError(`SQL error: cannot open the database: ${(error as Error).message}`);
    }
    try {
      if (mode === 'read-only') db.pragma('query_only = ON');
      return use(db);
    } finally {
      db.close();
    }
  };

  const judge = (sql: string): ToolPermission => {
    const kind = classifySql(sql);
    switch (kind.type) {
      case 'several':
        return { type: 'allow', reason: `refused without running: ${severalStatements(kind.count)}` };
      case 'unknown':
        return {
          type: 'allow',
          reason: 'not a statement SQLite accepts: the error is reported, nothing runs',
        };
      case 'change':
        return ask(sql, kind.reason);
      case 'read': {
        // A database that cannot be opened now is reported by execute, which opens it read-only.
        const confirmed = withConnection(
          'read-only',
          (db) => confirmRead(db, sql),
          () => undefined,
        );
        return confirmed === undefined
          ? { type: 'allow', reason: 'a plain read, run on a read-only connection' }
          : ask(sql, confirmed);
      }
    }
  };

  return defineTool({
    name: 'sql_query',
    description:
      "Run one SQL statement against the team's SQLite database. Plain reads (SELECT, WITH … SELECT, EXPLAIN, PRAGMA table_info and similar) run at once; anything else needs approval.",
    parameters: z.object({ sql: sqlText }),
    permissionTypes: ['sql_write'],
    permission: (args) => judge(args.sql),
    async execute(args) {
      const kind = classifySql(args.sql);
      if (kind.type === 'several') throw new ToolRefusedError(`Refused: ${severalStatements(kind.count)}`);
      // Only a statement that asked can reach a writable connection; a read (or text that is not a
      // statement) runs read-only even if someone approved it.
      const mode: ConnectionMode = kind.type === 'change' ? 'read-write' : 'read-only';
      return withConnection(
        mode,
        (db) => run(db, args.sql, maxRows),
        (message) => message,
      );
    },
  });
}

function ask(sql: string, reason: string): ToolPermission {
  return {
    type: 'ask',
    permissionType: 'sql_write',
    summary: `run SQL: ${sql}`,
    reason: `${reason}: needs approval`,
  };
}

/** SQLite's own view of a statement the tokens call a read; the reason to ask instead, if any. */
function confirmRead(db: Database.Database, sql: string): string | undefined {
  let statement: Database.Statement;
  try {
    statement = db.prepare(sql);
  } catch {
    // It does not compile (a missing table, a typo): executing it only reports the error, read-only.
    return undefined;
  }
  if (!statement.readonly) return 'SQLite reports that this statement writes';
  if (!statement.reader)
    return 'SQLite reports that this statement returns no rows, so it is not a plain read';
  const foreign = statement
    .columns()
    .find((column) => column.database !== null && column.database !== 'main' && column.database !== 'temp');
  return foreign ? `it reads from database "${foreign.database}", not the configured one` : undefined;
}

function run(db: Database.Database, sql: string, maxRows: number): string {
  let statement: Database.Statement;
  try {
    statement = db.prepare(sql);
  } catch (error) {
    return `SQL error: ${(error as Error).message}`;
  }
  try {
    if (!statement.reader) {
      const result = statement.run();
      return `OK: ${result.changes} row${result.changes === 1 ? '' : 's'} changed.`;
    }
    const rows: Record<string, unknown>[] = [];
    let more = false;
    for (const row of statement.iterate() as IterableIterator<Record<string, unknown>>) {
      if (rows.length === maxRows) {
        more = true;
        break;
      }
      rows.push(row);
    }
    return formatTable(
      statement.columns().map((column) => column.name),
      rows,
      more,
    );
  } catch (error) {
    return `SQL error: ${(error as Error).message}`;
  }
}
