import { z } from 'zod';

/** Messages between the benchmark and its fakes process, checked on arrival like any other input. */
export const toFakesSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    slackLatencyMs: z.number(),
    modelLatencyMs: z.number(),
    clickDelayMs: z.number(),
    approver: z.string(),
    eventsUrl: z.string(),
    signingSecret: z.string(),
  }),
  z.object({ type: z.literal('report') }),
]);
export type ToFakes = z.output<typeof toFakesSchema>;

export const fakesReportSchema = z.object({
  calls: z.record(z.string(), z.number()),
  duplicateKeys: z.number(),
  duplicateAnswers: z.number(),
  duplicateCards: z.number(),
  ephemerals: z.number(),
  failureNotices: z.number(),
  unknownMethods: z.array(z.string()),
  modelRequests: z.number(),
  /** Milliseconds from sending each Allow click to the app's HTTP response. */
  clickAcks: z.array(z.number()),
  clicksNotAcked: z.number(),
});
export type FakesReport = z.output<typeof fakesReportSchema>;

export const fromFakesSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    slackUrl: z.string(),
    slackOrigin: z.string(),
    botToken: z.string(),
    botUserId: z.string(),
    teamId: z.string(),
    modelBaseUrl: z.string(),
  }),
  /** One answer reached the fake Slack, at `at` (`epochMs`). */
  z.object({ type: z.literal('answer'), thread: z.number(), seq: z.number(), at: z.number() }),
  z.object({ type: z.literal('report'), report: fakesReportSchema }),
]);
export type FromFakes = z.output<typeof fromFakesSchema>;
