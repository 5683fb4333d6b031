import type { KnownBlock } from '@slack/types';
import { mentionUser, slackUrl } from '../text/escape-mrkdwn.js';
import { mrkdwn } from './approval-card-parts.js';
import { stopTurnButton } from './stop-button.js';

export interface StoppableEntry {
  readonly turnId: string;
  readonly status: 'running' | 'awaiting_approval';
  readonly requestedBy: string;
  readonly threadLink: string | undefined;
}

const described = { running: 'running', awaiting_approval: 'waiting for approval' } as const;

/**
 * Under the `/approvals` list: the requests the viewer may stop, each with the Stop button its thread
 * shows (same action, same rules, same audit), at most `maxBlocks` blocks. Empty when there are none.
 */
export function buildStoppableList(
  entries: readonly StoppableEntry[],
  options: { viewer: string; maxBlocks: number },
): KnownBlock[] {
  if (entries.length === 0 || options.maxBlocks < 2) return [];
  const shown = entries.slice(0, options.maxBlocks - 1);
  return [
    { type: 'section', text: mrkdwn('*Requests you can stop*') },
    ...shown.map((entry): KnownBlock => {
      const you = entry.requestedBy === options.viewer ? ' (you)' : '';
      const thread =
        entry.threadLink && /^https?:\/\/\S+$/.test(entry.threadLink)
          ? `<${slackUrl(entry.threadLink)}|thread>`
          : 'thread';
      return {
        type: 'section',
        text: mrkdwn(
          `A request by ${mentionUser(entry.requestedBy)}${you}, ${described[entry.status]} · ${thread}`,
        ),
        accessory: stopTurnButton(entry.turnId),
      };
    }),
  ];
}
