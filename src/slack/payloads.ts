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
  /** Files attached to the message: described to the model, never downloaded. */
  files: z
    .array(
      z.object({
        name: z.string().optional(),
        title: z.string().optional(),
        mimetype: z.string().optional(),
        filetype: z.string().optional(),
        size: z.number().optional(),
      }),
    )
    .optional()
    .catch(undefined),
});
export type MessageEvent = z.output<typeof messageEventSchema>;

export const eventEnvelopeSchema = z.object({
  team_id: z.string().optional(),
  event_id: z.string().optional(),
});

const actionSchema = z.object({
  action_id: z.string(),
  // Slack's own limit for a button value; a plan's "Allow all" carries each call's id and fingerprint.
  value: z.string().min(1).max(2000),
  block_id: z.string().optional(),
});

export const blockActionsSchema = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: z.string(), team_id: z.string().optional() }),
  team: z.object({ id: z.string(), enterprise_id: z.string().optional() }).nullable().optional(),
  enterprise: z.object({ id: z.string() }).nullable().optional(),
  trigger_id: z.string().optional(),
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
  /** Set when the click was in a view: the App Home (`home`) or a modal holdfast opened. */
  view: z
    .object({
      id: z.string().optional(),
      type: z.string().optional(),
      private_metadata: z.string().optional(),
    })
    .optional(),
  actions: z.array(actionSchema).min(1),
});
export type BlockActions = z.output<typeof blockActionsSchema>;

/**
 * The Enterprise Grid organisation a click came from, undefined outside Grid. Slack names it twice
 * (`enterprise.id`, `team.enterprise_id`); two different names are not one organisation, and come back
 * as both, which matches no installation.
 */
export function clickEnterpriseId(payload: BlockActions): string | undefined {
  const named = new Set(
    [payload.enterprise?.id, payload.team?.enterprise_id].filter((id): id is string => !!id),
  );
  return named.size === 0 ? undefined : [...named].join('|');
}

/** Where replies to clicks in the full-arguments modal go; kept in its `private_metadata`. */
export const modalReplyToSchema = z.object({
  channel: z.string().min(1).max(100).optional(),
  threadTs: z.string().max(50).optional(),
});

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

/** A submitted modal, as holdfast reads it: who, from which workspace, and the view's state. */
export const viewSubmissionSchema = z.object({
  type: z.literal('view_submission'),
  user: z.object({ id: z.string(), team_id: z.string().optional() }),
  team: z.object({ id: z.string(), enterprise_id: z.string().optional() }).nullable().optional(),
  enterprise: z.object({ id: z.string() }).nullable().optional(),
  view: z.object({
    id: z.string().optional(),
    callback_id: z.string(),
    private_metadata: z.string().max(3000).optional(),
    state: z
      .object({
        values: z.record(
          z.string(),
          z.record(
            z.string(),
            z.object({
              type: z.string(),
              value: z.string().nullable().optional(),
              selected_option: z.object({ value: z.string() }).nullable().optional(),
              selected_options: z
                .array(z.object({ value: z.string() }))
                .nullable()
                .optional(),
            }),
          ),
        ),
      })
      .optional(),
  }),
});
export type ViewSubmission = z.output<typeof viewSubmissionSchema>;

const decisionOriginSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('card'),
    teamId: z.string(),
    enterpriseId: z.string().optional(),
    channelId: z.string(),
    messageTs: z.string(),
  }),
  z.object({ type: z.literal('inbox'), teamId: z.string(), enterpriseId: z.string().optional() }),
]);

/**
 * The click a decision modal answers, kept in its `private_metadata` when holdfast opened it: Slack holds
 * the metadata and hands it back with the submission, so it is what the click was, checked again then.
 */
export const decisionModalMetadataSchema = z.object({
  requestId: z.string().min(1).max(200),
  argsFingerprint: z.string().max(100).optional(),
  origin: decisionOriginSchema,
  replyTo: modalReplyToSchema.optional(),
  /** For a grant form: the argument its pattern applies to. */
  argument: z.string().max(255).optional(),
  /** The click was in the App Home, which is rebuilt once the decision is made. */
  fromHome: z.boolean().optional(),
});
export type DecisionModalMetadata = z.output<typeof decisionModalMetadataSchema>;
