import { z } from 'zod';

const object = z.looseObject({});

/**
 * What Bolt 5 dereferences on its own before any of holdfast's listeners runs (its receiver reads
 * `body.ssl_check` and `body.type`; `getTypeAndConversation` and `buildSource` read `event`, `command`,
 * `actions[0]`, `team.id`, `user.id`, `enterprise.id`, `channel.id`, `view`, `authorizations[0]`). A body
 * without these shapes makes Bolt throw (a `null` body ends the process) or leaves the request unrouted
 * until Bolt's three-second timeout answers 404. Fields holdfast itself reads are checked again by the
 * listener's own schema (`slack/payloads.ts`); this is only the part Bolt needs to route safely.
 */
const eventEnvelope = z.looseObject({
  event: z.looseObject({ type: z.string() }),
  authorizations: z.array(object).optional(),
});

const slashCommand = z.looseObject({ command: z.string() });

const urlVerification = z.looseObject({ type: z.literal('url_verification') });

const sslCheck = z.looseObject({ ssl_check: z.literal('1') });

const interactionBase = {
  user: object,
  team: object.nullable().optional(),
  enterprise: object.nullable().optional(),
  channel: object.optional(),
};
const actions = z.array(z.looseObject({ action_id: z.string() })).min(1);

/** The interactivity payloads Bolt routes, keyed by their `type`. */
const interaction = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('block_actions'), ...interactionBase, actions }),
  z.looseObject({ type: z.literal('interactive_message'), ...interactionBase, actions }),
  z.looseObject({ type: z.literal('block_suggestion'), ...interactionBase }),
  z.looseObject({ type: z.literal('dialog_submission'), ...interactionBase }),
  z.looseObject({ type: z.literal('dialog_suggestion'), ...interactionBase }),
  z.looseObject({ type: z.literal('shortcut'), ...interactionBase }),
  z.looseObject({ type: z.literal('message_action'), ...interactionBase }),
  z.looseObject({ type: z.literal('view_submission'), ...interactionBase, view: object }),
  z.looseObject({ type: z.literal('view_closed'), ...interactionBase, view: object }),
]);

export type SlackBodyCheck = { type: 'routable' } | { type: 'unroutable'; reason: string };

/**
 * Whether a parsed request body (HTTP or a Socket Mode envelope's payload) is something Bolt can route
 * without tripping over it. Which schema applies follows Bolt's own order of tests: an `event` key makes it
 * an Events API callback, a `command` key a slash command, and anything else is judged by its `type`.
 */
export function checkSlackRequestBody(body: unknown): SlackBodyCheck {
  if (!object.safeParse(body).success)
    return unroutable(`the body is ${describeJsonType(body)}, not an object`);
  const fields = body as Record<string, unknown>;
  const schema =
    'event' in fields
      ? eventEnvelope
      : 'command' in fields
        ? slashCommand
        : 'ssl_check' in fields
          ? sslCheck
          : fields.type === 'url_verification'
            ? urlVerification
            : interaction;
  const parsed = schema.safeParse(body);
  if (parsed.success) return { type: 'routable' };
  const issue = parsed.error.issues[0];
  return unroutable(`${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
}

function unroutable(reason: string): SlackBodyCheck {
  return { type: 'unroutable', reason };
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
