import type { Button, KnownBlock } from '@slack/types';

export const STOP_TURN_ACTION_ID = 'holdfast.turn.stop';

/** The Stop button on a running turn's live message; its value is the turn id. */
export function stopTurnActions(turnId: string): KnownBlock {
  return { type: 'actions', block_id: 'holdfast.turn', elements: [stopTurnButton(turnId)] };
}

/** Stop for one turn, with Slack's confirmation first: the same button wherever it is offered. */
export function stopTurnButton(turnId: string): Button {
  return {
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
  };
}
