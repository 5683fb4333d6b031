import type { App } from '@slack/bolt';
import { eventEnvelopeSchema, messageEventSchema } from '../payloads.js';
import { type ReceiveMessageDeps, receiveMessage } from '../receive-message.js';

/** `app_mention` and `message` both feed the same intake; it dedupes the twins. */
export function registerMessageListeners(app: App, deps: ReceiveMessageDeps & { teamId?: string }): void {
  const handle = async (rawEvent: unknown, rawBody: unknown, contextTeam: string | undefined) => {
    const event = messageEventSchema.safeParse(rawEvent);
    const envelope = eventEnvelopeSchema.safeParse(rawBody);
    if (!event.success || !envelope.success) {
      deps.logger.warn(
        { issues: event.error?.issues ?? envelope.error?.issues },
        'ignoring a malformed message event',
      );
      return;
    }
    const teamId = envelope.data.team_id ?? contextTeam ?? deps.teamId;
    if (!teamId) {
      deps.logger.warn('ignoring a message event without a team id');
      return;
    }
    const result = await receiveMessage(deps, event.data, { teamId, eventId: envelope.data.event_id });
    deps.logger.debug({ result: result.type, ts: event.data.ts }, 'message event handled');
  };
  app.event('app_mention', async ({ event, body, context }) => handle(event, body, context.teamId));
  app.message(async ({ message, body, context }) => handle(message, body, context.teamId));
}
