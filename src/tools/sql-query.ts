import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { defineTool } from './define-tool.js';

export interface SqlQueryOptions {
  /** A SQLite file: a path, `sqlite:path` or a `file:` URL. */
  readonly url: string;
  readonly cwd?: string;
  readonly maxRows?: number;
}

export function sqliteFileFrom(url: string, cwd = process.cwd()): string {
  if (url.startsWith('file:')) return fileURLToPath(url);
  if (url.startsWith('sqlite:'))
    return path.resolve(cwd, url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, ''));
  if (/^[a-z]+:\/\//i.test(url)) {
    throw new ConfigError(
      `HOLDFAST_SQL_URL ${url.split('://')[0]}:// is not supported; use a SQLite file path.`,
    );
  }
  return path.resolve(cwd, url);
}

/**
 * SQL against the team's database. Whether a statement writes is SQLite's answer (`Statement.readonly`),
 * not a regex over the text: `WITH … DELETE`, `PRAGMA x = y` and comments cannot fool it.
 */
export function createSqlQueryTool(options: SqlQueryOptions) {
  const file = sqliteFileFrom(options.url, options.cwd);
  const maxRows = options.maxRows ?? 100;
  let db: Database.Database | undefined;
  const open = () => {
    db ??= new Database(file, { fileMustExist: true, timeout: 5_000 });
    return db;
  };
  const readonlyOf = (sql: string): boolean | Error => {
    try {
      return open().prepare(sql).readonly;
    } catch (error) {
      return error as Error;
    }
  };
  return defineTool({
    name: 'sql_query',
    description: `Run one SQL statement against the team's SQLite database. Read-only statements run at once; anything that writes needs approval.`,
    parameters: z.object({ sql: z.string().min(1).max(20_000) }),
    permission: (args) => {
      const readonly = readonlyOf(args.sql);
      // A statement that does not even prepare cannot run; let execute report SQLite's message to the model.
      if (readonly instanceof Error) return { type: 'allow', reason: 'invalid SQL is reported, not run' };
      if (readonly) return { type: 'allow', reason: 'read-only statement' };
      return { type: 'ask', permissionType: 'sql_write', summary: `run SQL: ${args.sql}` };
    },
    async execute(args) {
      let statement: Database.Statement;
      try {
        statement = open().prepare(args.sql);
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
    },
  });
}

export function formatTable(
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  more: boolean,
): string {
  if (rows.length === 0) return `(no rows) columns: ${columns.join(', ')}`;
  const cell = (value: unknown) => {
    const text = value === null ? 'NULL' : Buffer.isBuffer(value) ? `<${value.length} bytes>` : String(value);
    return text.length > 60 ? `${text.slice(0, 59)}…` : text.replace(/\n/g, ' ');
  };
  const body = rows.map((row) => columns.map((column) => cell(row[column])));
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...body.map((line) => (line[index] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((text, index) => text.padEnd(widths[index] ?? 0))
      .join(' | ')
      .trimEnd();
  return [
    line(columns),
    widths.map((width) => '-'.repeat(width)).join('-|-'),
    ...body.map(line),
    `(${rows.length}${more ? '+' : ''} row${rows.length === 1 ? '' : 's'}${more ? `; stopped at ${rows.length}` : ''})`,
  ].join('\n');
}
