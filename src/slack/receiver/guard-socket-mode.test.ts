import { describe, expect, it } from 'vitest';
import { checkSocketModeMessage } from './guard-socket-mode.js';

const mentionPayload = {
  type: 'event_callback',
  team_id: 'T0HOLDFAST',
  event: { type: 'app_mention', user: 'U0ALICE', text: 'hi', ts: '1.000001', channel: 'C0OPS' },
};

describe('checkSocketModeMessage', () => {
  it.each([
    ['hello', { type: 'hello', num_connections: 1 }],
    ['disconnect', { type: 'disconnect', reason: 'refresh_requested' }],
    ['an events_api envelope', { type: 'events_api', envelope_id: 'e1', payload: mentionPayload }],
    [
      'an interactive envelope',
      {
        type: 'interactive',
        envelope_id: 'e2',
        payload: { type: 'block_actions', user: { id: 'U0BOB' }, actions: [{ action_id: 'a' }] },
      },
    ],
    [
      'a slash_commands envelope',
      { type: 'slash_commands', envelope_id: 'e3', payload: { command: '/approvals', text: '' } },
    ],
  ])('accepts %s', (_name, envelope) => {
    expect(checkSocketModeMessage(JSON.stringify(envelope))).toEqual({ type: 'accepted' });
  });

  it.each([
    ['text that is not JSON', '{"type":'],
    ['null', 'null'],
    ['an array', '[]'],
    ['an envelope with no type', '{}'],
    ['an envelope type the client would emit as a connection event', '{"type":"disconnected"}'],
    ['an error envelope', '{"type":"error","envelope_id":"e","payload":{}}'],
    ['events_api without an envelope id', JSON.stringify({ type: 'events_api', payload: mentionPayload })],
    ['events_api with a null payload', '{"type":"events_api","envelope_id":"e","payload":null}'],
    [
      'events_api without an event',
      '{"type":"events_api","envelope_id":"e","payload":{"type":"event_callback"}}',
    ],
    ['interactive with a null payload', '{"type":"interactive","envelope_id":"e","payload":null}'],
    [
      'slash_commands with a string payload',
      '{"type":"slash_commands","envelope_id":"e","payload":"/approvals"}',
    ],
  ])('refuses %s', (_name, text) => {
    expect(checkSocketModeMessage(text)).toMatchObject({ type: 'refused' });
  });
});
