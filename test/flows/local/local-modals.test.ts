import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { startHoldfast } from '../../../src/main.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestLogger } from '../../support/test-logger.js';
import { type SignedInTab, type StateMessage, signIn, waitForState } from './local-http.js';

interface ModalState {
  readonly modal: {
    id: string;
    view: { callback_id: string; blocks: Array<{ type: string; block_id?: string }> };
  } | null;
  readonly legend: Array<{ status: string; reaction: string; label: string }>;
}

async function startLocalHoldfast() {
  const dir = tempDir('holdfast-modals-');
  const config = loadConfig(
    {
      PATH: process.env.PATH ?? '',
      HOLDFAST_DB: path.join(dir.path, 'holdfast.db'),
      HOLDFAST_WORKDIR: path.join(dir.path, 'work'),
    },
    dir.path,
  );
  const holdfast = await startHoldfast(config, {
    logger: createTestLogger().logger,
    localWorkspace: { port: 0 },
  });
  onTestFinished(() => holdfast.stop());
  if (!holdfast.localUrl) throw new Error('holdfast did not start its local workspace');
  return signIn(holdfast.localUrl);
}

const button = (message: StateMessage, actionId: string) => {
  for (const block of message.blocks)
    for (const element of block.elements ?? []) if (element.action_id === actionId) return { block, element };
  return undefined;
};

async function modalOf(tab: SignedInTab, user: string): Promise<ModalState> {
  return JSON.parse((await tab.get(`/state?as=${user}`)).text) as ModalState;
}

describe('modals in the local workspace', () => {
  it('opens the deny form in front of the approver, and its reason reaches the card', async () => {
    const tab = await startLocalHoldfast();
    await tab.post('/ui/message', { user: 'U0ALICE', channel: 'C0OPS', text: '<@U0HOLDFAST> run `uptime`' });
    const card = await waitForState(
      tab,
      'U0BOB',
      (state) => state.messages.find((message) => button(message, 'holdfast.approval.deny')),
      'an approval card',
    );
    const deny = button(card, 'holdfast.approval.deny');

    await tab.post('/ui/click', {
      user: 'U0BOB',
      channel: card.channel,
      message_ts: card.ts,
      action_id: 'holdfast.approval.deny',
      value: deny?.element.value,
      block_id: deny?.block.block_id,
    });
    const opened = await waitForState(
      tab,
      'U0BOB',
      (state) => (state as unknown as ModalState).modal ?? undefined,
      'the deny form',
    );
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
    const tab = await startLocalHoldfast();
    await tab.post('/ui/message', {
      user: 'U0ALICE',
      channel: 'C0OPS',
      text: '<@U0HOLDFAST> run `echo proposed-locally`',
    });
    const card = await waitForState(
      tab,
      'U0BOB',
      (state) => state.messages.find((message) => button(message, 'holdfast.approval.edit')),
      'an approval card with Edit…',
    );
    const edit = button(card, 'holdfast.approval.edit');

    await tab.post('/ui/click', {
      user: 'U0BOB',
      channel: card.channel,
      message_ts: card.ts,
      action_id: 'holdfast.approval.edit',
      value: edit?.element.value,
      block_id: edit?.block.block_id,
    });
    const opened = await waitForState(
      tab,
      'U0BOB',
      (state) => (state as unknown as ModalState).modal ?? undefined,
      'the edit form',
    );
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
    const tab = await startLocalHoldfast();
    const { legend } = await modalOf(tab, 'U0ALICE');
    expect(legend.map((entry) => entry.status)).toEqual([
      'working',
      'awaiting',
      'done',
      'denied',
      'expired',
      'failed',
      'interrupted',
    ]);
  });
});
