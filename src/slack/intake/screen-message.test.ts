import { describe, expect, it } from 'vitest';
import type { MessageEvent } from '../payloads.js';
import { screenMessage } from './screen-message.js';

const botUserId = 'U0HOLDFAST';
const envelope = { teamId: 'T0TEAM', eventId: 'Ev0ONE' };
const options = { botUserId, redact: (text: string) => text.replaceAll('hunter2', '[redacted]') };

function event(fields: Partial<MessageEvent>): MessageEvent {
  return {
    type: 'message',
    user: 'U0ALICE',
    text: 'hello',
    ts: '1700000000.000200',
    channel: 'C0OPS',
    ...fields,
  };
}

describe('screenMessage', () => {
  it.each([
    ['a bot', { bot_id: 'B0OTHER' }, 'posted by a bot'],
    ['no author', { user: undefined }, 'posted by a bot'],
    ['holdfast itself', { user: botUserId, text: `<@${botUserId}> hi` }, 'our own message'],
    ['an edit', { subtype: 'message_changed', text: `<@${botUserId}> hi` }, 'subtype message_changed'],
    ['no text', { text: `  ` }, 'no text'],
    ['a channel message to nobody', {}, 'not addressed to holdfast'],
    ['a thread parent to nobody', { thread_ts: '1700000000.000200' }, 'thread holdfast is not part of'],
  ])('ignores %s', (_what, fields, reason) => {
    expect(screenMessage(event(fields), envelope, options)).toEqual({ type: 'ignored', reason });
  });

  it('keeps a mention under a key per copy, in its thread’s lane, with its text redacted', () => {
    const mention = event({
      type: 'app_mention',
      text: `<@${botUserId}> the password is hunter2`,
      thread_ts: '1700000000.000100',
    });
    const screening = screenMessage(mention, envelope, options);
    expect(screening).toEqual({
      type: 'keep',
      message: {
        key: 'T0TEAM:C0OPS:1700000000.000200:app_mention',
        lane: 'T0TEAM:C0OPS:1700000000.000100',
        payload: expect.any(String),
      },
    });
    const payload = JSON.parse(screening.type === 'keep' ? screening.message.payload : '{}');
    expect(payload).toEqual({
      event: { ...mention, text: `<@${botUserId}> the password is [redacted]` },
      teamId: 'T0TEAM',
      eventId: 'Ev0ONE',
    });
  });

  it('asks about the thread for a plain reply, and keeps a DM at once', () => {
    const reply = screenMessage(event({ thread_ts: '1700000000.000100' }), envelope, options);
    expect(reply).toMatchObject({
      type: 'if-thread-known',
      conversationId: 'T0TEAM:C0OPS:1700000000.000100',
    });
    const direct = screenMessage(event({ channel: 'D0ALICE', channel_type: 'im' }), envelope, options);
    expect(direct).toMatchObject({ type: 'keep', message: { lane: 'T0TEAM:D0ALICE:1700000000.000200' } });
  });

  it('reads "new" in a DM as a fresh start, and not in a thread', () => {
    expect(screenMessage(event({ channel: 'D0ALICE', text: 'new' }), envelope, options)).toEqual({
      type: 'fresh-start',
    });
    const inThread = event({ channel: 'D0ALICE', text: 'new', thread_ts: '1700000000.000100' });
    expect(screenMessage(inThread, envelope, options).type).toBe('keep');
  });
});
