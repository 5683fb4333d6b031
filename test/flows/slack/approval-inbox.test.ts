import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import {
  approvalButtons,
  countingShellTool,
  people,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { denyWithReason } from './slack-modals.js';

async function pendingRestart() {
  const { tool, runs } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
    reply.text('Done.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool] });
  const threadTs = await slack.mention('please restart the web tier');
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  return { slack, runs, card };
}

async function inboxReply(slack: SlackHarness, text: string, user: string, channelId?: string) {
  const name = `command-${user}-${text || 'channel'}-${channelId ?? 'ops'}`;
  const response = await slack.command(text, { user, channel: channelId, responseName: name });
  expect(response.status).toBe(200);
  return (await slack.api.waitForResponse((post) => post.name === name)).body;
}

describe('the approvals inbox', () => {
  it('/approvals lists what waits in this channel, privately, with the card buttons for an approver', async () => {
    const { slack, card } = await pendingRestart();

    const body = await inboxReply(slack, '', people.bob);

    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toBe('1 approval waiting in this channel.');
    const buttons = approvalButtons(body.blocks);
    expect(buttons.map((button) => button.action_id)).toEqual([
      'holdfast.approval.allow',
      'holdfast.approval.deny',
      'holdfast.approval.edit',
      'holdfast.approval.always',
    ]);
    expect(buttons.every((button) => button.value === card.requestId)).toBe(true);
  });

  it('/approvals shows someone who may not decide the request and its state, with no buttons', async () => {
    const { slack } = await pendingRestart();

    const body = await inboxReply(slack, '', people.mallory);

    expect(body.text).toBe('1 approval waiting in this channel.');
    expect(approvalButtons(body.blocks)).toEqual([]);
    expect(JSON.stringify(body.blocks)).toContain('You cannot decide this request.');
  });

  it('/approvals offers the requester only Deny, to withdraw their own request', async () => {
    const { slack, card } = await pendingRestart();

    const body = await inboxReply(slack, '', people.alice);

    const buttons = approvalButtons(body.blocks);
    expect(buttons.map((button) => button.action_id)).toEqual(['holdfast.approval.deny']);
    expect(buttons[0]?.value).toBe(card.requestId);
  });

  it('/approvals shows one entry per request, scannable, what waits on you first, identical ones apart', async () => {
    const { tool } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_bobs']),
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_alices']),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool] });
    const bobsThread = await slack.mention('restart web', { user: people.bob });
    const bobsCard = await waitForCard(slack.api, bobsThread);
    const alicesThread = await slack.mention('restart web please');
    const alicesCard = await waitForCard(slack.api, alicesThread);
    await slack.settle();

    const body = await inboxReply(slack, '', people.bob);

    const blocks = body.blocks as Array<{ type: string; text?: { text: string } }>;
    expect(blocks.slice(0, 6).map((block) => block.type)).toEqual([
      'section',
      'section',
      'actions',
      'divider',
      'section',
      'actions',
    ]);
    const [alices, bobs] = [blocks[1]?.text?.text ?? '', blocks[4]?.text?.text ?? ''];
    // Alice's request waits on bob, so it comes first although bob's own is older.
    expect(alices).toMatch(
      /\n\*Waiting on you\* · <#C0OPS> · requested by <@U0ALICE> · asked <!date\^\d+\^\{ago\}\|[^>]+> · expires <!date\^/,
    );
    expect(bobs).toMatch(/\n<#C0OPS> · requested by <@U0BOB> \(you\) · asked <!date/);
    const refs = [alices, bobs].map((text) => /ref `([A-Za-z0-9]+)`/.exec(text)?.[1]);
    expect(refs[0]).toBeDefined();
    expect(refs[0]).not.toBe(refs[1]);
    const buttons = approvalButtons(body.blocks);
    expect(buttons.filter((button) => button.value === alicesCard.requestId)).toHaveLength(4);
    // Bob may only withdraw his own request.
    expect(
      buttons.filter((button) => button.value === bobsCard.requestId).map((button) => button.action_id),
    ).toEqual(['holdfast.approval.deny']);
  });

  it('/approvals help says what each form of the command shows', async () => {
    const { slack } = await pendingRestart();

    const body = await inboxReply(slack, 'help', people.mallory);

    expect(body.response_type).toBe('ephemeral');
    const text = JSON.stringify(body.blocks);
    for (const form of ['`/approvals`', '`/approvals all`', '`/approvals grants`', '`/approvals help`']) {
      expect(text).toContain(`*${form}*`);
    }
    expect(approvalButtons(body.blocks)).toEqual([]);
  });

  it('/approvals in another channel has nothing to show', async () => {
    const { slack } = await pendingRestart();

    const body = await inboxReply(slack, '', people.bob, 'C0QUIET');

    expect(body.text).toBe('Nothing is waiting for approval in this channel.');
    expect(approvalButtons(body.blocks)).toEqual([]);
  });

  it('/approvals all lists only what the viewer may decide', async () => {
    const { slack, card } = await pendingRestart();

    const forCarol = await inboxReply(slack, 'all', people.carol);
    const forMallory = await inboxReply(slack, 'all', people.mallory);

    expect(forCarol.text).toBe('1 approval waiting that you can decide.');
    expect(approvalButtons(forCarol.blocks)[0]?.value).toBe(card.requestId);
    expect(forMallory.text).toBe('Nothing is waiting for approval that you can decide.');
  });

  it('decides from the ephemeral inbox: the card in the thread is rewritten and the clicker told', async () => {
    const { slack, card, runs } = await pendingRestart();

    await slack.click('allow', card, { from: 'ephemeral', responseName: 'inbox-click' });

    const told = await slack.api.waitForResponse((post) => post.name === 'inbox-click');
    expect(told.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(String(told.body.text)).toContain('Allowed by <@U0BOB>');
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(approvalButtons(update.params.blocks)).toEqual([]);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();
    expect(runs).toEqual(['systemctl restart web']);
  });

  it('publishes the App Home with the pending request when the tab opens', async () => {
    const { slack, card } = await pendingRestart();

    await slack.sendEvent({ type: 'app_home_opened', user: people.bob, channel: 'D0BOB', tab: 'home' });

    const publish = await slack.api.waitFor('views.publish', (call) => call.params.user_id === people.bob);
    const view = publish.params.view as { type: string; blocks: unknown[] };
    expect(view.type).toBe('home');
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(approvalButtons(view.blocks).map((button) => button.value)).toContain(card.requestId);
    expect(publish.response.ok).toBe(true);
  });

  it('publishes an App Home with no buttons for someone who may not decide', async () => {
    const { slack } = await pendingRestart();

    await slack.sendEvent({ type: 'app_home_opened', user: people.mallory, channel: 'D0MAL', tab: 'home' });

    const publish = await slack.api.waitFor(
      'views.publish',
      (call) => call.params.user_id === people.mallory,
    );
    const view = publish.params.view as { blocks: unknown[] };
    expect(approvalButtons(view.blocks)).toEqual([]);
    expect(JSON.stringify(view.blocks)).toContain('Nothing is waiting for approval that you can decide.');
  });

  it('decides from the App Home and shows the new state there', async () => {
    const { slack, card, runs } = await pendingRestart();

    await denyWithReason(slack, card, { from: 'home', user: people.carol });

    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(String(update.params.text)).toContain('Denied by <@U0CAROL>');
    const publish = await slack.api.waitFor('views.publish', (call) => call.params.user_id === people.carol);
    const view = publish.params.view as { blocks: unknown[] };
    expect(approvalButtons(view.blocks)).toEqual([]);
    expect(JSON.stringify(view.blocks)).toContain('Denied by <@U0CAROL>');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();
    expect(runs).toEqual([]);
  });

  it('tells a refused App Home clicker why, in a direct message', async () => {
    const { slack, card, runs } = await pendingRestart();

    await slack.click('allow', card, { from: 'home', user: people.mallory });

    const direct = await slack.api.waitFor(
      'chat.postMessage',
      (call) => call.params.channel === people.mallory,
    );
    expect(String(direct.params.text)).toContain('You are not an approver');
    await slack.api.waitFor('views.publish', (call) => call.params.user_id === people.mallory);
    await slack.settle();
    expect(runs).toEqual([]);
    expect(slack.api.callsTo('chat.update')).toEqual([]);
  });
});
