import { z } from 'zod';

const range = z.object({ min: z.number(), max: z.number() });

/** Messages between the benchmark and its fakes process, checked on arrival like any other input. */
export const toFakesSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('start'),
    slackLatencyMs: z.number(),
    slackLimits: z.boolean(),
    modelLatencyMs: range,
    clickDelayMs: range,
    seed: z.number(),
    approver: z.string(),
    eventsUrl: z.string(),
    signingSecret: z.string(),
  }),
  z.object({ type: z.literal('report') }),
]);
export type ToFakes = z.output<typeof toFakesSchema>;

const at = z.number().optional();

export const fakesReportSchema = z.object({
  calls: z.record(z.string(), z.number()),
  methods: z.record(
    z.string(),
    z.object({ calls: z.number(), limited: z.number(), insideRetryAfter: z.number() }),
  ),
  duplicateKeys: z.number(),
  duplicateAnswers: z.number(),
  duplicateCards: z.number(),
  ephemerals: z.number(),
  failureNotices: z.number(),
  unknownMethods: z.array(z.string()),
  /** Per mention marker, when each step happened (`epochMs`) and what went twice. */
  timeline: z.record(
    z.string(),
    z.object({
      toolCall: at,
      modelAnswer: at,
      card: at,
      click: at,
      toolStart: at,
      answer: at,
      doubledAnswers: z.number().optional(),
      doubledCards: z.number().optional(),
      besideOpenPreview: z.number().optional(),
    }),
  ),
  firstReplies: z.record(z.string(), z.number()),
  reactions: z.record(z.string(), z.object({ names: z.array(z.string()), changedAt: z.number() })),
  streamsOpen: z.number(),
  clickedCardsWithButtons: z.number(),
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
