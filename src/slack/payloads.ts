import { z } from 'zod';

/**
 * Slack payloads as holdfast reads them. Parsed at the edge: fields we do not use are allowed through,
 * fields we rely on must be there with the right type, or the payload is refused with a log line.
 */
export const messageEventSchema = z.object({
  type: z.enum(['message', 'app_mention']),
  subtype: z.string().optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional().default(''),
  ts: z.string(),
  thread_ts: z.string().optional(),
  channel: z.string(),
  channel_type: z.string().optional(),
});
export type MessageEvent = z.output<typeof messageEventSchema>;

export const eventEnvelopeSchema = z.object({
  team_id: z.string().optional(),
  event_id: z.string().optional(),
});

const actionSchema = z.object({
  action_id: z.string(),
  value: z.string().min(1).max(200),
  block_id: z.string().optional(),
});

export const blockActionsSchema = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string(), team_id: z.string().optional() }),
  team: z.object({ id: z.string() }).nullable().optional(),
  container: z
    .object({
      type: z.string(),
      message_ts: z.string().optional(),
      channel_id: z.string().optional(),
      is_ephemeral: z.boolean().optional(),
    })
    .optional(),
  channel: z.object({ id: z.string() }).optional(),
  message: z.object({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  response_url: z.string().optional(),
  actions: z.array(actionSchema).min(1),
});
export type BlockActions = z.output<typeof blockActionsSchema>;

export const slashCommandSchema = z.object({
  command: z.string(),
  text: z.string().default(''),
  user_id: z.string(),
  team_id: z.string(),
  channel_id: z.string(),
});

export const appHomeOpenedSchema = z.object({
  type: z.literal('app_home_opened'),
  user: z.string(),
  tab: z.string().optional(),
});
