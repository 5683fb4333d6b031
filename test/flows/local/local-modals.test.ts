import { describe, expect, it } from 'vitest';
import { startLocalHoldfast } from './local-holdfast.js';
import { buttonOf, type SignedInTab, waitForState } from './local-http.js';

interface ModalState {
  readonly modal: {
    id: string;
    view: { callback_id: string; blocks: Array<{ type: string; block_id?: string }> };
  } | null;
  readonly legend: Array<{ status: string; reaction: string; label: string }>;
}

/**
 * alice asks holdfast to run `command`; bob clicks `actionId` on the approval card he sees. The card
 * and the form the click opened in front of bob.
 */
async function openFormAsBob(
  tab: SignedInTab,
  command: string,
  actionId: string,
  what: { readonly card: string; readonly form: string },
) {
  await tab.post('/ui/message', {
    user: 'U0ALICE',
    channel: 'C0OPS',
    text: `<@U0HOLDFAST> run \`${command}\``,
  });
  const card = await waitForState(
    tab,
    'U0BOB',
    (state) => state.messages.find((message) => buttonOf(message, actionId)),
    what.card,
  );
  const pressed = buttonOf(card, actionId);
  await tab.post('/ui/click', {
    user: 'U0BOB',
    channel: card.channel,
    message_ts: card.ts,
    action_id: actionId,
    value: pressed?.element.value,
    block_id: pressed?.block.block_id,
  });
  const opened = await waitForState(
    tab,
    'U0BOB',
    (state) => (state as unknown as ModalState).modal ?? undefined,
    what.form,
  );
  return { card, opened };
}

async function modalOf(tab: SignedInTab, user: string): Promise<ModalState> {
  return JSON.parse((await tab.get(`/state?as=${user}`)).text) as ModalState;
}

describe('modals in the local workspace', () => {
  it('opens the deny form in front of the approver, and its reason reaches the card', async () => {
    const { tab } = await startLocalHoldfast('holdfast-modals-');
    const { card, opened } = await openFormAsBob(tab, 'uptime', 'holdfast.approval.deny', {
      card: 'an approval card',
      form: 'the deny form',
    });
    expect(opened.view.callback_id).toBe('holdfast.approval.deny_reason');
    expect((await modalOf(tab, 'U0ALICE')).modal).toBeNull();

    const submitted = await tab.post('/ui/submit', {
      user: 'U0BOB',
      view_id: opened.id,
      values: { 'holdfast.deny.reason': { reason: { text: 'not on a Friday' } } },
    });
    expect(JSON.parse(submitted.text)).toEqual({ ok: true });
    const decided = await waitForState(
      tab,
      'U0BOB',
      (state) =>
        state.messages.find((message) => message.ts === card.ts && message.text.includes('Denied by')),
      'the card rewritten as denied',
    );
    expect(decided.text).toContain('not on a Friday');
    expect((await modalOf(tab, 'U0BOB')).modal).toBeNull();
  });

  it('opens the edit form in front of the approver, and runs the edited command', async () => {
    const { tab } = await startLocalHoldfast('holdfast-modals-');
    const { card, opened } = await openFormAsBob(tab, 'echo proposed-locally', 'holdfast.approval.edit', {
      card: 'an approval card with Edit…',
      form: 'the edit form',
    });
    expect(opened.view.callback_id).toBe('holdfast.approval.edit');
    const field = opened.view.blocks.find((block) => block.type === 'input');
    expect(field?.block_id).toBe('holdfast.edit.0');

    const submitted = await tab.post('/ui/submit', {
      user: 'U0BOB',
      view_id: opened.id,
      values: { 'holdfast.edit.0': { value: { text: 'echo edited-locally' } } },
    });
    expect(JSON.parse(submitted.text)).toEqual({ ok: true });
    const decided = await waitForState(
      tab,
      'U0BOB',
      (state) =>
        state.messages.find((message) => message.ts === card.ts && message.text.includes('Allowed by')),
      'the card rewritten as allowed',
    );
    expect(JSON.stringify(decided.blocks)).toContain('Arguments edited by');
    const answer = await waitForState(
      tab,
      'U0BOB',
      (state) =>
        state.messages.find((message) => message.text.includes('edited-locally') && message.ts !== card.ts),
      'the answer from the edited command',
    );
    expect(answer.text).not.toContain('ran: echo proposed-locally');
  });

  it('lists what each status reaction means', async () => {
    const { tab } = await startLocalHoldfast('holdfast-modals-');
    const { legend } = await modalOf(tab, 'U0ALICE');
    expect(legend.map((entry) => entry.status)).toEqual([
      'working',
      'awaiting',
      'done',
      'failed-calls',
      'denied',
      'expired',
      'failed',
      'interrupted',
    ]);
  });
});
