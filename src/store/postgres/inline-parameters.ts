import pg from 'pg';

/** A value a store statement binds: what the adapter passes, nothing else. */
export type SqlValue = string | number | boolean | null | undefined | readonly (string | number)[];

/**
 * Writes a parameterised statement as plain text with its values as quoted literals, so several
 * statements can travel in one simple-query message (the extended protocol, which binds `$n`, carries
 * one statement per round trip). Each value becomes an untyped string literal, which PostgreSQL resolves
 * from its context exactly as it does a bound parameter, or `NULL`; `pg.escapeLiteral` doubles quotes and
 * backslashes (as `E''` when there are any), so no value can end its literal. Placeholders inside quoted
 * strings, quoted identifiers and comments are left alone.
 */
export function inlineParameters(text: string, values: readonly unknown[]): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    const next = text[index + 1];
    if (char === "'" || char === '"') {
      const end = closingQuote(text, index, char);
      out += text.slice(index, end);
      index = end;
    } else if (char === '-' && next === '-') {
      const end = text.indexOf('\n', index);
      const stop = end === -1 ? text.length : end;
      out += text.slice(index, stop);
      index = stop;
    } else if (char === '$' && next !== undefined && next >= '0' && next <= '9') {
      let end = index + 1;
      while (end < text.length && (text[end] as string) >= '0' && (text[end] as string) <= '9') end += 1;
      const position = Number(text.slice(index + 1, end));
      if (position < 1 || position > values.length) {
        throw new Error(`statement names $${position} but binds ${values.length} values`);
      }
      out += literal(values[position - 1]);
      index = end;
    } else {
      out += char;
      index += 1;
    }
  }
  return out;
}

/** The index just past the quote that closes the one at `start` (a doubled quote does not close). */
function closingQuote(text: string, start: number, quote: string): number {
  let index = start + 1;
  while (index < text.length) {
    if (text[index] === quote) {
      if (text[index + 1] === quote) index += 2;
      else return index + 1;
    } else index += 1;
  }
  return text.length;
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot bind the number ${value}`);
    return `'${String(value)}'`;
  }
  if (typeof value === 'boolean') return value ? `'true'` : `'false'`;
  if (Array.isArray(value)) return quoted(`{${value.map(arrayElement).join(',')}}`);
  throw new Error(`cannot bind a value of type ${typeof value}`);
}

function arrayElement(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return `"${value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
  throw new Error(`cannot bind an array element of type ${typeof value}`);
}

/** The server would refuse a NUL in text anyway; refused here before it could cut a message short. */
function quoted(value: string): string {
  if (value.includes('\u0000')) throw new Error('cannot bind a string holding a NUL character');
  return pg.escapeLiteral(value).trim();
}
