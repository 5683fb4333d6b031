/**
 * A token of SQLite SQL. Comments and whitespace are dropped; string literals and quoted identifiers are
 * single tokens, so nothing inside them is ever read as a keyword or a statement boundary.
 */
export type SqlToken =
  /** A bare keyword or identifier; `upper` is its upper-case spelling. */
  | { readonly kind: 'word'; readonly text: string; readonly upper: string }
  /** `"name"`, `[name]` or `` `name` ``; `name` is the identifier without quotes. */
  | { readonly kind: 'quoted'; readonly text: string; readonly name: string }
  | { readonly kind: 'string'; readonly text: string }
  /** Numbers, parameters, operators and punctuation (one character each, except numbers and parameters). */
  | { readonly kind: 'other'; readonly text: string };

// SQLite's own rules (tokenize.c): these five characters are whitespace, and any byte >= 0x80 may be part
// of an identifier, so a non-breaking space is a letter to SQLite, not a gap.
const whitespace = new Set([' ', '\t', '\n', '\f', '\r']);
const isIdentifierStart = (char: string) => /[A-Za-z_]/.test(char) || char.charCodeAt(0) >= 0x80;
const isIdentifierPart = (char: string) => isIdentifierStart(char) || /[0-9$]/.test(char);
const closingQuote: Record<string, string> = { '"': '"', '`': '`', '[': ']' };

/** Splits SQL the way SQLite's tokenizer does, as far as telling keywords from everything else needs. */
export function sqlTokens(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let at = 0;
  const scanWhile = (from: number, test: (char: string) => boolean) => {
    let end = from;
    while (end < sql.length && test(sql[end] ?? '')) end++;
    return end;
  };
  while (at < sql.length) {
    const char = sql[at] ?? '';
    const next = sql[at + 1] ?? '';
    if (whitespace.has(char)) {
      at++;
    } else if (char === '-' && next === '-') {
      const end = sql.indexOf('\n', at);
      at = end === -1 ? sql.length : end + 1;
    } else if (char === '/' && next === '*') {
      // An unterminated block comment runs to the end of the text, as in SQLite.
      const end = sql.indexOf('*/', at + 2);
      at = end === -1 ? sql.length : end + 2;
    } else if (char === "'") {
      const end = quotedEnd(sql, at, "'");
      tokens.push({ kind: 'string', text: sql.slice(at, end) });
      at = end;
    } else if (char in closingQuote) {
      const close = closingQuote[char] ?? char;
      const end = char === '[' ? bracketEnd(sql, at) : quotedEnd(sql, at, close);
      const text = sql.slice(at, end);
      const inner = text.slice(1, text.endsWith(close) && text.length > 1 ? -1 : undefined);
      tokens.push({
        kind: 'quoted',
        text,
        name: char === '[' ? inner : inner.replaceAll(close + close, close),
      });
      at = end;
    } else if (isIdentifierStart(char)) {
      const end = scanWhile(at, isIdentifierPart);
      const text = sql.slice(at, end);
      tokens.push({ kind: 'word', text, upper: text.toUpperCase() });
      at = end;
    } else if (/[0-9]/.test(char) || (char === '.' && /[0-9]/.test(next))) {
      const end = scanWhile(at + 1, (c) => /[0-9A-Za-z_.]/.test(c));
      tokens.push({ kind: 'other', text: sql.slice(at, end) });
      at = end;
    } else if ('?:@$'.includes(char)) {
      const end = scanWhile(at + 1, isIdentifierPart);
      tokens.push({ kind: 'other', text: sql.slice(at, end) });
      at = end;
    } else {
      tokens.push({ kind: 'other', text: char });
      at++;
    }
  }
  return tokens;
}

/** The end of a literal opened at `start`; a doubled quote is an escaped one. Unterminated: end of text. */
function quotedEnd(sql: string, start: number, quote: string): number {
  let at = start + 1;
  while (at < sql.length) {
    if (sql[at] === quote) {
      if (sql[at + 1] === quote) at += 2;
      else return at + 1;
    } else at++;
  }
  return sql.length;
}

function bracketEnd(sql: string, start: number): number {
  const end = sql.indexOf(']', start + 1);
  return end === -1 ? sql.length : end + 1;
}

export const isPunctuation = (token: SqlToken | undefined, text: string): boolean =>
  token?.kind === 'other' && token.text === text;

export const isWord = (token: SqlToken | undefined, ...upper: string[]): boolean =>
  token?.kind === 'word' && upper.includes(token.upper);

/** A word or a quoted identifier, lower-cased, as a name; undefined for anything else. */
export function nameOf(token: SqlToken | undefined): string | undefined {
  if (token?.kind === 'word') return token.text.toLowerCase();
  if (token?.kind === 'quoted') return token.name.toLowerCase();
  return undefined;
}

/**
 * The statements in a token list. A `;` ends a statement, except inside the body of a CREATE TRIGGER,
 * which ends at `; END ;` (the rule SQLite's sqlite3_complete follows). Empty statements are skipped.
 */
export function splitStatements(tokens: readonly SqlToken[]): SqlToken[][] {
  const statements: SqlToken[][] = [];
  let current: SqlToken[] = [];
  for (const token of tokens) {
    if (isPunctuation(token, ';')) {
      if (isTrigger(current) && !endsTriggerBody(current)) {
        current.push(token);
        continue;
      }
      if (current.length > 0) statements.push(current);
      current = [];
      continue;
    }
    current.push(token);
  }
  if (current.length > 0) statements.push(current);
  return statements;
}

function isTrigger(tokens: readonly SqlToken[]): boolean {
  if (!isWord(tokens[0], 'CREATE')) return false;
  const next = isWord(tokens[1], 'TEMP', 'TEMPORARY') ? tokens[2] : tokens[1];
  return isWord(next, 'TRIGGER');
}

function endsTriggerBody(tokens: readonly SqlToken[]): boolean {
  return isWord(tokens.at(-1), 'END') && isPunctuation(tokens.at(-2), ';');
}
