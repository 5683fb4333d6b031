import { isPunctuation, isWord, nameOf, type SqlToken, splitStatements, sqlTokens } from './sql-tokens.js';

/**
 * What a SQL text is, read from its tokens alone (no database needed, so the answer cannot change when
 * the schema does):
 * - `read`: a plain read of the configured database (SELECT, VALUES, WITH … SELECT, EXPLAIN of those,
 *   or a PRAGMA from the short read-only list);
 * - `change`: anything else SQLite would accept, with the reason a person is asked;
 * - `unknown`: text SQLite cannot take as a statement at all (it does not start with a statement keyword),
 *   so running it can only produce SQLite's syntax error;
 * - `several`: more than one statement.
 */
export type SqlKind =
  | { readonly type: 'read' }
  | { readonly type: 'change'; readonly reason: string }
  | { readonly type: 'unknown' }
  | { readonly type: 'several'; readonly count: number };

/**
 * PRAGMAs that only report, each with the argument forms allowed: `none` (`PRAGMA x`) or `call`
 * (`PRAGMA x(name)`). `PRAGMA x = y` is never a read. Every other PRAGMA asks, since many change the file
 * (journal_mode, wal_checkpoint) or the connection (locking_mode, query_only) even when they look like
 * questions.
 */
const readOnlyPragmas: ReadonlyMap<string, ReadonlySet<'none' | 'call'>> = new Map([
  ['table_info', new Set(['call'] as const)],
  ['table_xinfo', new Set(['call'] as const)],
  ['table_list', new Set(['none', 'call'] as const)],
  ['index_list', new Set(['call'] as const)],
  ['index_info', new Set(['call'] as const)],
  ['index_xinfo', new Set(['call'] as const)],
  ['foreign_key_list', new Set(['call'] as const)],
  ['user_version', new Set(['none'] as const)],
  ['application_id', new Set(['none'] as const)],
]);

const change = (reason: string): SqlKind => ({ type: 'change', reason });

export function classifySql(sql: string): SqlKind {
  const statements = splitStatements(sqlTokens(sql));
  if (statements.length > 1) return { type: 'several', count: statements.length };
  return classifyStatement(statements[0] ?? []);
}

function classifyStatement(tokens: readonly SqlToken[]): SqlKind {
  const first = tokens[0];
  if (first?.kind !== 'word') return { type: 'unknown' };
  switch (first.upper) {
    case 'SELECT':
    case 'VALUES':
      return plainRead(tokens);
    case 'WITH': {
      const main = mainKeywordAfterWith(tokens);
      if (main === undefined) return { type: 'unknown' };
      return main === 'SELECT' || main === 'VALUES' ? plainRead(tokens) : change(`${main} changes data`);
    }
    case 'EXPLAIN': {
      const rest =
        isWord(tokens[1], 'QUERY') && isWord(tokens[2], 'PLAN') ? tokens.slice(3) : tokens.slice(1);
      const inner = classifyStatement(rest);
      return inner.type === 'change' ? change('EXPLAIN of a statement that is not a plain read') : inner;
    }
    case 'PRAGMA':
      return classifyPragma(tokens.slice(1));
    case 'ATTACH':
    case 'DETACH':
      return change(`${first.upper} changes the connection`);
    case 'BEGIN':
    case 'COMMIT':
    case 'END':
    case 'ROLLBACK':
    case 'SAVEPOINT':
    case 'RELEASE':
      return change(`${first.upper} is transaction control and holds locks on the file`);
    case 'VACUUM':
      return tokens.some((token) => isWord(token, 'INTO'))
        ? change('VACUUM INTO writes a copy of the database to another file')
        : change('VACUUM rewrites the database file');
    case 'REINDEX':
      return change('REINDEX rebuilds indexes in the file');
    case 'ANALYZE':
      return change('ANALYZE writes statistics into the database');
    case 'INSERT':
    case 'UPDATE':
    case 'DELETE':
    case 'REPLACE':
      return change(`${first.upper} changes data`);
    case 'CREATE':
    case 'DROP':
    case 'ALTER':
      return change(`${first.upper} changes the schema`);
    default:
      return { type: 'unknown' };
  }
}

/**
 * A read, unless it calls load_extension. That SQL function is disabled on every connection
 * better-sqlite3 opens (it enables only the C API, never `sqlite3_enable_load_extension`), so such a call
 * fails with "not authorized" even after approval; it still asks, so that a build which enables it can
 * never load native code without a person seeing it. Quoted spellings count: `"load_extension"(…)` is the
 * same function to SQLite.
 */
function plainRead(tokens: readonly SqlToken[]): SqlKind {
  const loadsExtension = tokens.some(
    (token, index) => nameOf(token) === 'load_extension' && isPunctuation(tokens[index + 1], '('),
  );
  return loadsExtension ? change('load_extension loads native code into holdfast') : { type: 'read' };
}

/**
 * The keyword of the statement a WITH clause belongs to: the first SELECT, VALUES, INSERT, UPDATE, DELETE
 * or REPLACE outside every parenthesis (the CTE bodies are all in parentheses). REPLACE may also be a
 * CTE's name; taking it for the statement then asks, which is the safe mistake.
 */
function mainKeywordAfterWith(tokens: readonly SqlToken[]): string | undefined {
  let depth = 0;
  for (const token of tokens.slice(1)) {
    if (isPunctuation(token, '(')) depth++;
    else if (isPunctuation(token, ')')) depth--;
    else if (depth === 0 && isWord(token, 'SELECT', 'VALUES', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE')) {
      return token.kind === 'word' ? token.upper : undefined;
    }
  }
  return undefined;
}

/** `PRAGMA [schema.]name [= value | (value)]`; a read only for a listed name in a listed form. */
function classifyPragma(tokens: readonly SqlToken[]): SqlKind {
  const qualified = isPunctuation(tokens[1], '.');
  const schema = qualified ? nameOf(tokens[0]) : undefined;
  const name = nameOf(qualified ? tokens[2] : tokens[0]);
  const rest = tokens.slice(qualified ? 3 : 1);
  if (name === undefined) return { type: 'unknown' };
  if (schema !== undefined && schema !== 'main') {
    return change('PRAGMA on a database other than the configured one');
  }
  const forms = readOnlyPragmas.get(name);
  if (!forms)
    return change(`PRAGMA ${name} is not on the read-only list and can change the file or connection`);
  const form =
    rest.length === 0
      ? 'none'
      : rest.length === 3 &&
          isPunctuation(rest[0], '(') &&
          (nameOf(rest[1]) !== undefined || rest[1]?.kind === 'string') &&
          isPunctuation(rest[2], ')')
        ? 'call'
        : undefined;
  if (form === undefined || !forms.has(form)) return change(`PRAGMA ${name} in this form sets a value`);
  return { type: 'read' };
}
