import type { RefusalReason } from '../../approvals/refusal-reason.js';
import type { Approval } from '../../store/records.js';
import { mentionUser } from './escape-mrkdwn.js';

/** Why a click decided nothing, in words for the person who clicked (Slack mrkdwn). */
export function describeRefusal(reason: RefusalReason, approval: Approval): string {
  switch (reason) {
    case 'not-approver':
      return `You are not an approver for \`${approval.toolName}\`. Ask someone on the approver list to decide it.`;
    case 'not-asked':
      return `This question is for ${mentionUser(approval.requestedBy)}, who asked for the call: only they can answer it.`;
    case 'self-approval':
      return 'You asked for this call, so you cannot approve it yourself. Another approver has to decide.';
    case 'no-approvers':
      return `No approvers are configured for \`${approval.toolName}\`. Set HOLDFAST_APPROVERS or the policy file.`;
    case 'origin-mismatch':
      return (
        'This button is not on a card holdfast posted for that request, so nothing was changed. ' +
        'Decide it from the card in its thread, or from `/approvals`.'
      );
    case 'origin-unconfirmed':
      return (
        'holdfast could not check with Slack that this card belongs to that request, so nothing was ' +
        'changed. Try again in a moment, or decide it from `/approvals`.'
      );
    case 'workspace-mismatch':
      return 'This click came from another Slack workspace or organisation than the request, so nothing was changed.';
    case 'definition-changed':
      return (
        `The server behind \`${approval.toolName}\` changed that tool (its description or arguments) after this ` +
        'request was made, so nothing was allowed: what you were shown is no longer what would run. The ' +
        'request is shown again in the thread for the tool as it is now: check it there, then decide.'
      );
    case 'arguments-mismatch':
      if (approval.edit && approval.decision === null) {
        return (
          `${mentionUser(approval.edit.by)} edited the arguments of this request after this button was made, so nothing ` +
          'was changed. Check the edited call on the card (or in `/approvals`) and decide that.'
        );
      }
      return (
        'This button was not made for the arguments that request holds, so nothing was changed. ' +
        'Open the request from `/approvals` or the App Home and check what will run.'
      );
  }
}
