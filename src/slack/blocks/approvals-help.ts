import { mrkdwn } from './approval-card-parts.js';
import type { SlackMessage } from './slack-message.js';

const lines = [
  '*`/approvals`*: the requests waiting in this channel, what waits on you first, with the turns you may stop.',
  '*`/approvals all`*: every request you may decide, in any channel.',
  '*`/approvals grants`*: the standing grants of this channel and its threads, with Revoke.',
  '*`/approvals help`*: this help.',
];

/**
 * `/approvals help`: what each form of the command shows. Only the reader sees it; buttons appear only on
 * requests the reader may decide (Deny alone on their own requests, to withdraw them).
 */
export function buildApprovalsHelp(): SlackMessage {
  const intro = 'Approve or deny what holdfast is waiting to run.';
  const outro =
    'You see buttons only on requests you may decide; on your own requests, Deny withdraws them. ' +
    'The App Home tab shows the same inbox, your recent decisions and the grants you made.';
  return {
    text: `${intro} Use /approvals, /approvals all, /approvals grants or /approvals help.`,
    blocks: [
      { type: 'section', text: mrkdwn(`*${intro}*`) },
      { type: 'section', text: mrkdwn(lines.join('\n')) },
      { type: 'context', elements: [mrkdwn(outro)] },
    ],
  };
}
