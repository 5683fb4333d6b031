import { z } from 'zod';
import { StoredRowInvalidError } from '../store-errors.js';

/** Parses a JSON column with its schema; a bad row is an error naming the row, never a silent default. */
export function parseJsonColumn<Schema extends z.ZodType>(
  schema: Schema,
  text: string,
  where: { table: string; key: string },
): z.output<Schema> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StoredRowInvalidError(
      where.table,
      where.key,
      error instanceof Error ? error.message : 'bad JSON',
    );
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new StoredRowInvalidError(where.table, where.key, z.prettifyError(parsed.error));
  return parsed.data;
}
