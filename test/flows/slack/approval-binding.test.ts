import { describe, expect, it, vi } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import {
  approvalActionBlocks,
  approvalButtons,
  countingShellTool,
  type HarnessOptions,
  people,
  readRows,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { denyWithReason } from './slack-modals.js';

async function pendingCommand(command: string, options: Partial<HarnessOptions> = {}) {
  const { tool, runs } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command }, 'call_1']),
    reply.text('Done.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool], ...options });
  const threadTs = await slack.mention('please run it');
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  return { slack, runs, card, model };
}

async function ephemeralFor(slack: SlackHarness, user: string): Promise<string> {
  const call = await slack.api.waitFor('chat.postEphemeral', (candidate) => candidate.params.user === user);
  return String(call.params.text);
}

function refusals(
  slack: SlackHarness,
): Array<{ actor: string; approvalId: unknown; data: Record<string, unknown> }> {
  return readRows(
    slack.databasePath,
    "SELECT actor, approval_id, data_json FROM audit_events WHERE kind = 'approval.refused' ORDER BY id",
  ).map((row) => ({
    actor: String(row.actor),
    approvalId: row.approval_id,
    data: JSON.parse(String(row.data_json)) as Record<string, unknown>,
  }));
}

/** The text of every code block in a set of blocks, joined, with Slack's three entities decoded. */
function codeText(blocks: unknown): string {
  const texts = (Array.isArray(blocks) ? blocks : []).flatMap((block: { text?: { text?: string } }) =>
    block.text?.text ? [block.text.text] : [],
  );
  return texts
    .flatMap((text) => [...text.matchAll(/```\n([\s\S]*?)\n```/g)].map((match) => match[1] ?? ''))
    .join('')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

describe('what a click is bound to', () => {
  it('refuses a click whose arguments hash is not the request’s, and changes nothing', async () => {
    const { slack, runs, card, model } = await pendingCommand('systemctl restart web');
    const forged = `holdfast.approval:${card.requestId}:${'0'.repeat(32)}`;

    await slack.click('allow', { ...card, blockId: forged });

    expect(await ephemeralFor(slack, people.bob)).toContain('not made for the arguments');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(model.calls).toHaveLength(1);
    expect(slack.api.callsTo('chat.update')).toEqual([]);
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
    });
    expect(refusals(slack)).toEqual([
      {
        actor: people.bob,
        approvalId: card.requestId,
        data: expect.objectContaining({ reason: 'arguments-mismatch', action: 'allow' }),
      },
    ]);
  });

  it('refuses a click on a button that carries no arguments hash at all', async () => {
    const { slack, runs, card } = await pendingCommand('systemctl restart web');

    await slack.click('allow', { ...card, blockId: `holdfast.approval:${card.requestId}` });

    expect(await ephemeralFor(slack, people.bob)).toContain('not made for the arguments');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(refusals(slack).map((row) => row.data.reason)).toEqual(['arguments-mismatch']);
  });

  it('offers no one-click Allow for arguments too long to show; the full view carries Allow', async () => {
    const command = `echo ${'x'.repeat(5000)} && rm -rf /srv/app/releases/old`;
    const { slack, runs, card } = await pendingCommand(command);

    const actionIds = approvalButtons(card.call.params.blocks).map((button) => button.action_id);
    expect(actionIds).toEqual(['holdfast.approval.view', 'holdfast.approval.deny']);
    expect(JSON.stringify(card.call.params.blocks)).not.toContain('rm -rf /srv/app/releases/old');

    await slack.click('view', card);
    const opened = await slack.api.waitFor('views.open');
    expect(opened.response.ok).toBe(true);
    const modal = opened.params.view as { type: string; blocks: unknown[]; private_metadata?: string };
    expect(modal.type).toBe('modal');
    expect(JSON.parse(codeText(modal.blocks))).toEqual({ command });
    const inModal = approvalButtons(modal.blocks);
    expect(inModal.map((button) => button.action_id)).toEqual([
      'holdfast.approval.allow',
      'holdfast.approval.deny',
      'holdfast.approval.always',
    ]);
    expect(runs).toEqual([]);

    await slack.click('allow', card, {
      from: 'modal',
      view: {
        id: String((opened.response.view as { id: string }).id),
        private_metadata: modal.private_metadata,
      },
    });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual([command]);
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: 'allowed',
      decidedBy: people.bob,
    });
  });

  it('refuses a click from another Enterprise Grid organisation with the same team id', async () => {
    const { slack, runs, card } = await pendingCommand('systemctl restart web');

    await slack.click('allow', card, { enterpriseId: 'E0ELSEWHERE' });

    expect(await ephemeralFor(slack, people.bob)).toContain('another Slack workspace or organisation');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
    });
    expect(refusals(slack)).toEqual([
      {
        actor: people.bob,
        approvalId: card.requestId,
        data: expect.objectContaining({ reason: 'workspace-mismatch', action: 'allow' }),
      },
    ]);
  });

  it('accepts a click from the organisation holdfast is installed in', async () => {
    const { slack, runs, card } = await pendingCommand('systemctl restart web', {
      identity: { enterpriseId: 'E0GRID' },
    });

    await slack.click('allow', card, { enterpriseId: 'E0GRID' });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
  });
});

describe('a click is bound to a card of its request as posted', () => {
  it('refuses and audits a click whose container names a channel no card was posted in', async () => {
    const { slack, runs, card } = await pendingCommand('systemctl restart web');

    await slack.click('allow', { ...card, channel: 'C0ELSEWHERE' });

    expect(await ephemeralFor(slack, people.bob)).toContain('not on a card holdfast posted for that request');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
      cards: [{ channel: card.channel, ts: card.ts }],
    });
    expect(refusals(slack)).toEqual([
      {
        actor: people.bob,
        approvalId: card.requestId,
        data: expect.objectContaining({ reason: 'origin-mismatch', action: 'allow' }),
      },
    ]);
  });

  it('refuses a click on another message in the card’s own thread', async () => {
    const { slack, runs, card } = await pendingCommand('systemctl restart web');

    await slack.click('allow', { ...card, ts: card.threadTs });

    expect(await ephemeralFor(slack, people.bob)).toContain('not on a card holdfast posted for that request');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(refusals(slack).map((row) => row.data.reason)).toEqual(['origin-mismatch']);
  });

  it('finds a card whose ts a crash kept from the database in Slack, and accepts its click', async () => {
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([
        reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_1']),
        reply.text('Done.'),
      ]),
      tools: [tool],
      // The outbox does not look for the lost post before the click comes.
      delivery: { backoffMs: () => 60_000 },
    });
    const lostCard = slack.api.holdNext('chat.postMessage', (call) =>
      String(call.params.text).startsWith('Approval needed'),
    );
    const threadTs = await slack.mention('please run it');
    await lostCard.arrived;
    lostCard.drop();
    const card = await waitForCard(slack.api, threadTs);
    expect(readRows(slack.databasePath, 'SELECT ts FROM approval_cards')).toEqual([]);

    await slack.click('allow', card);

    await vi.waitFor(() => expect(runs).toEqual(['systemctl restart web']));
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: 'allowed',
      decidedBy: people.bob,
    });
    expect(readRows(slack.databasePath, 'SELECT channel, ts FROM approval_cards')).toEqual([
      { channel: card.channel, ts: card.ts },
    ]);
    expect(slack.api.callsTo('conversations.replies').some((call) => call.params.ts === threadTs)).toBe(true);
    expect(refusals(slack)).toEqual([]);
  });

  it('finds a DM copy whose ts a crash kept from the database, and accepts its click', async () => {
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([
        reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_1']),
        reply.text('Done.'),
      ]),
      tools: [tool],
      delivery: { backoffMs: () => 60_000 },
      env: { HOLDFAST_APPROVER_DMS: '10' },
    });
    const isCopy = (call: { params: Record<string, unknown> }) =>
      String(
        (call.params.metadata as { event_payload?: { key?: string } } | undefined)?.event_payload?.key,
      ).startsWith('copies:');
    const lostCopy = slack.api.holdNext('chat.postMessage', isCopy);
    await slack.mention('please run it');
    await lostCopy.arrived;
    lostCopy.drop();
    const posted = await slack.api.waitFor(
      'chat.postMessage',
      (call) => isCopy(call) && call.response.ok === true,
    );
    const copy = approvalActionBlocks(posted.params.blocks)[0];
    const requestId = String(copy?.elements[0]?.value);
    const dm = { channel: String(posted.params.channel), ts: String(posted.response.ts) };
    expect(
      readRows(slack.databasePath, `SELECT ts FROM approval_cards WHERE channel = '${dm.channel}'`),
    ).toEqual([]);

    await slack.click('allow', { requestId, blockId: copy?.block_id, ...dm });

    await vi.waitFor(() => expect(runs).toEqual(['systemctl restart web']));
    expect(await slack.holdfast.runtime.store.approvals.get(requestId)).toMatchObject({
      decision: 'allowed',
    });
    expect(
      readRows(slack.databasePath, `SELECT ts FROM approval_cards WHERE channel = '${dm.channel}'`),
    ).toEqual([{ ts: dm.ts }]);
    expect(refusals(slack)).toEqual([]);
  });

  it('refuses a click on an unrecorded message when Slack cannot be asked about it', async () => {
    const { slack, runs, card } = await pendingCommand('systemctl restart web');
    slack.api.failNext('conversations.replies', { type: 'http', status: 503 }, 20);

    await slack.click('allow', { ...card, channel: 'C0ELSEWHERE' });

    expect(await ephemeralFor(slack, people.bob)).toContain('could not check with Slack');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(refusals(slack).map((row) => row.data.reason)).toEqual(['origin-unconfirmed']);
  });
});

describe('refused clicks are on record', () => {
  it('records a click on a request holdfast never issued, and tells the clicker', async () => {
    const { slack, card } = await pendingCommand('systemctl restart web');
    const unknown = 'apr_neverissuedneverissued';

    await slack.click('allow', {
      ...card,
      requestId: unknown,
      blockId: `holdfast.approval:${unknown}:${'a'.repeat(32)}`,
    });

    expect(await ephemeralFor(slack, people.bob)).toContain('not known to holdfast');
    await slack.settle();
    expect(refusals(slack)).toEqual([
      {
        actor: people.bob,
        approvalId: null,
        data: expect.objectContaining({ reason: 'unknown-request', requestId: unknown, action: 'allow' }),
      },
    ]);
  });

  it('records a click on a request that was already decided', async () => {
    const { slack, runs, card } = await pendingCommand('systemctl restart web');
    await denyWithReason(slack, card);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    await slack.click('allow', card, { user: people.carol });

    expect(await ephemeralFor(slack, people.carol)).toContain('already denied by <@U0BOB>');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(refusals(slack)).toEqual([
      {
        actor: people.carol,
        approvalId: card.requestId,
        data: expect.objectContaining({ reason: 'already-decided', action: 'allow', decision: 'denied' }),
      },
    ]);
  });
});
