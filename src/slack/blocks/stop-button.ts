import type { KnownBlock } from '@slack/types';

export const STOP_TURN_ACTION_ID = 'holdfast.turn.stop';

/** The Stop button on a running turn's live message; its value is the turn id. */
export function stopTurnActions(turnId: string): KnownBlock {
  return {
    type: 'actions',
    block_id: 'holdfast.turn',
    elements: [
      {
        type: 'button',
        action_id: STOP_TURN_ACTION_ID,
        text: { type: 'plain_text', text: 'Stop' },
        style: 'danger',
        value: turnId,
        confirm: {
          title: { type: 'plain_text', text: 'Stop this request?' },
          text: { type: 'plain_text', text: 'What is running is killed, and waiting requests are declined.' },
          confirm: { type: 'plain_text', text: 'Stop' },
          deny: { type: 'plain_text', text: 'Keep going' },
        },
      },
    ],
  };
}
