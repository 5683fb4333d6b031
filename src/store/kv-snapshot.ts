import { z } from 'zod';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number(),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

export interface KvSnapshot {
  readonly values: Record<string, JsonValue>;
  readonly children: Record<string, KvSnapshot>;
}

export const kvSnapshotSchema: z.ZodType<KvSnapshot> = z.lazy(() =>
  z.object({
    values: z.record(z.string(), jsonValueSchema),
    children: z.record(z.string(), kvSnapshotSchema),
  }),
);

/** A conversation's plugin state before any plugin wrote to it. */
export const emptyKvSnapshot: KvSnapshot = { values: {}, children: {} };
