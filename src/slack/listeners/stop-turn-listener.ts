import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import type { Runtime } from '../../runtime/create-runtime.js';
import { STOP_TURN_ACTION_ID } from '../blocks/stop-button.js';
import { blockActionsSchema } from '../payloads.js';

export interface StopTurnListenerDeps {
  readonly runtime: Runtime;
  readonly logger: Logger;
  /** The installation's workspace: a click from any other is not ours to act on. */
  readonly teamId?: string;
}

/** The Stop button on a running turn: acknowledged at once, then the turn is stopped for good. */
export function registerStopTurnListener(app: App, deps: StopTurnListenerDeps): void {
  app.action({ action_id: STOP_TURN_ACTION_ID }, async ({ ack, body, respond }) => {
    await ack();
    const parsed = blockActionsSchema.safeParse(body);
    if (!parsed.success) {
      deps.logger.warn({ issues: parsed.error.issues }, 'ignoring a malformed Stop click');
      return;
    }
    const click = parsed.data;
    const turnId = click.actions.find((action) => action.action_id === STOP_TURN_ACTION_ID)?.value;
    const userId = click.user.id;
    const reply = async (text: string) => {
      if (!click.response_url) return;
      await respond({ response_type: 'ephemeral', replace_original: false, text }).catch((error: unknown) => {
        deps.logger.debug({ err: error }, 'could not reply to a Stop click');
      });
    };
    if (!turnId || (deps.teamId && click.team?.id !== deps.teamId)) {
      deps.logger.warn({ userId, team: click.team?.id }, 'refusing a Stop click from another workspace');
      return;
    }
    const outcome = await deps.runtime.stop({ turnId, userId });
    switch (outcome.type) {
      case 'stopped':
        return;
      case 'already-ended':
        await reply('That request has already finished; there is nothing to stop.');
        return;
      case 'not-allowed':
        await reply('Only the person who asked and the approvers can stop this request.');
        return;
      case 'unknown':
        await reply('holdfast does not know that request.');
        return;
    }
  });
}
