import type { App } from '@slack/bolt';
import type { Logger } from 'pino';
import { escapeMrkdwn, inlineCodeSafe } from '../text/escape-mrkdwn.js';

/** Every block action id other than the approval buttons, Stop and a grant's Revoke. */
const notAnApprovalAction =
  /^(?!holdfast\.approval\.(?:allow|deny|always|view|allow_all)$|holdfast\.turn\.stop$|holdfast\.grant\.revoke$)/;
const notApprovalsCommand = /^(?!\/approvals$)/;

/**
 * Acknowledges interactions holdfast has no listener for (buttons of other versions, a slash command
 * pointed at the wrong app). Unacknowledged, Bolt answers 404 after three seconds and Slack shows the
 * clicker an error; acknowledged, the click is a no-op and the command gets a one-line explanation.
 */
export function registerUnknownInteractionListeners(app: App, deps: { logger: Logger }): void {
  app.action({ action_id: notAnApprovalAction }, async ({ ack, action }) => {
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
