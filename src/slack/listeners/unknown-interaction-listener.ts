import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { APPROVAL_ACTION_IDS } from '../blocks/approval-actions.js';
import { GRANT_REVOKE_ACTION_ID } from '../blocks/grant-list.js';
import { PLAN_ALLOW_ALL_ACTION_ID } from '../blocks/plan-card.js';
import { STOP_TURN_ACTION_ID } from '../blocks/stop-button.js';
import { escapeMrkdwn, inlineCodeSafe } from '../text/escape-mrkdwn.js';

/**
 * Every action id a listener of its own answers. Built from the ids themselves, so a button added there
 * is never also answered here (two acknowledgements: Bolt logs `ReceiverMultipleAckError`).
 */
const handledActionIds = [
  ...Object.values(APPROVAL_ACTION_IDS),
  PLAN_ALLOW_ALL_ACTION_ID,
  STOP_TURN_ACTION_ID,
  GRANT_REVOKE_ACTION_ID,
];
/** Every block action id other than the handled ones. */
const unhandledAction = new RegExp(
  `^(?!(?:${handledActionIds.map((id) => id.replaceAll('.', '\\.')).join('|')})$)`,
);
const notApprovalsCommand = /^(?!\/approvals$)/;

/**
 * Acknowledges interactions holdfast has no listener for (buttons of other versions, a slash command
 * pointed at the wrong app). Unacknowledged, Bolt answers 404 after three seconds and Slack shows the
 * clicker an error; acknowledged, the click is a no-op and the command gets a one-line explanation.
 */
export function registerUnknownInteractionListeners(app: App, deps: { logger: Logger }): void {
  app.action({ action_id: unhandledAction }, async ({ ack, action }) => {
    await ack();
    deps.logger.debug(
      { actionId: 'action_id' in action ? action.action_id : undefined },
      'ignoring an unknown action',
    );
  });
  app.command(notApprovalsCommand, async ({ ack, command }) => {
    await ack({
      response_type: 'ephemeral',
      text: `holdfast does not handle \`${escapeMrkdwn(inlineCodeSafe(command.command))}\`. Try \`/approvals\` or mention holdfast in a thread.`,
    });
  });
}
