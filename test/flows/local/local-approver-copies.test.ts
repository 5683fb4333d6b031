import { describe, expect, it } from 'vitest';
import { startLocalHoldfast } from './local-holdfast.js';
import { buttonOf, type StateMessage, waitForState } from './local-http.js';

const allowButton = (message: StateMessage) => buttonOf(message, 'holdfast.approval.allow');

describe("approvers' copies in the local workspace", () => {
  it("shows bob the card in his DM, decides the request from there, and rewrites the thread's card", async () => {
    const { tab } = await startLocalHoldfast('holdfast-local-copies-');

    await tab.post('/ui/message', { user: 'U0ALICE', channel: 'C0OPS', text: '<@U0HOLDFAST> run `uptime`' });
    const copy = await waitForState(
      tab,
      'U0BOB',
      (state) => state.messages.find((message) => message.channel === 'D0BOB' && allowButton(message)),
      "the card in bob's DM",
    );
    expect(copy.text).toMatch(/^Approval needed: /);
    // alice asked: she may not approve it, so her DM gets no copy.
    const alices = await tab.state('U0ALICE');
    expect(alices.messages.filter((message) => message.channel === 'D0ALICE')).toEqual([]);

    const allow = allowButton(copy);
    await tab.post('/ui/click', {
      user: 'U0BOB',
      channel: copy.channel,
      message_ts: copy.ts,
      action_id: 'holdfast.approval.allow',
      value: allow?.element.value,
      block_id: allow?.block.block_id,
    });
    const decided = await waitForState(
      tab,
      'U0ALICE',
      (state) =>
        state.messages.find(
          (message) => message.channel === 'C0OPS' && message.text.startsWith('Allowed by <@U0BOB>'),
        ),
      "the thread's card, decided",
    );
    expect(decided.blocks.some((block) => block.type === 'actions')).toBe(false);
    await waitForState(
      tab,
      'U0BOB',
      (state) =>
        state.messages.find(
          (message) => message.ts === copy.ts && message.text.startsWith('Allowed by <@U0BOB>'),
        ),
      "bob's copy, decided",
    );
  });
});
