import { z } from 'zod';

/** One race: every id in `ids` is attempted once, in order, by each process it is sent to. */
export const raceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('claim-turns'), ids: z.array(z.string()) }),
  z.object({ type: z.literal('decide'), ids: z.array(z.string()), decision: z.enum(['allowed', 'denied']) }),
  /** Thread timestamps: each process starts its own new turn in each of these threads. */
  z.object({ type: z.literal('enqueue'), ids: z.array(z.string()) }),
  z.object({ type: z.literal('claim-outbox'), ids: z.array(z.string()) }),
]);
export type Race = z.output<typeof raceSchema>;
