import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestClock } from '../../support/test-clock.js';
import {
  approvalButtons,
  channel,
  countingShellTool,
  people,
  readRows,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { denyReasonCallbackId, denyWithReason, nextModal, submitModal } from './slack-modals.js';

async function pendingRestart(options: { env?: Record<string, string>; now?: () => number } = {}) {
  const { tool, runs } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
    reply.text('Done.'),
    reply.text('Second answer.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool], ...options });
  const threadTs = await slack.mention('please restart the web tier');
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  return { slack, model, runs, threadTs, card };
}

async function ephemeralFor(slack: SlackHarness, user: string): Promise<string> {
  const call = await slack.api.waitFor('chat.postEphemeral', (candidate) => candidate.params.user === user);
  return String(call.params.text);
}

async function approvalRow(slack: SlackHarness, requestId: string) {
  return slack.holdfast.runtime.store.approvals.get(requestId);
}

describe('deciding an approval from its card', () => {
  it('tells a second click that the request was already allowed, and runs the tool once', async () => {
    const { slack, runs, card, threadTs } = await pendingRestart();

    expect((await slack.click('allow', card)).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();
    expect((await slack.click('allow', card, { user: people.carol })).status).toBe(200);

    const told = await ephemeralFor(slack, people.carol);
    expect(told).toMatch(/already allowed by <@U0BOB>/);
    await slack.settle();
    expect(runs).toEqual(['systemctl restart web']);
    expect(slack.api.callsTo('chat.update')).toHaveLength(1);
    expect(slack.api.thread(channel, threadTs).filter((message) => message.text === 'Done.')).toHaveLength(1);
  });

  it('decides once when two approvers click at the same moment', async () => {
    const { slack, runs, card } = await pendingRestart();
    // A deny is decided when its reason form is submitted, so Carol's form is open before the race.
    const before = slack.api.callsTo('views.open').length;
    expect((await slack.click('deny', card, { user: people.carol })).status).toBe(200);
    const denyForm = await nextModal(slack, denyReasonCallbackId, before);

    const responses = await Promise.all([
      slack.click('allow', card, { user: people.bob }),
      submitModal(
        slack,
        denyForm,
        { 'holdfast.deny.reason': { reason: { text: null } } },
        { user: people.carol },
      ),
    ]);
    expect(responses.map((response) => response.status)).toEqual([200, 200]);
    await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    await slack.api.waitFor('chat.postEphemeral');
    await slack.settle();

    const row = await approvalRow(slack, card.requestId);
    const loser = row?.decidedBy === people.bob ? people.carol : people.bob;
    expect(await ephemeralFor(slack, loser)).toMatch(/already (allowed|denied) by/);
    expect(runs).toHaveLength(row?.decision === 'allowed' ? 1 : 0);
    expect(slack.api.callsTo('chat.update')).toHaveLength(1);
  });

  it('lets a member of an approver group decide', async () => {
    const { slack, runs, card } = await pendingRestart();

    await slack.click('allow', card, { user: people.carol });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
    expect(await approvalRow(slack, card.requestId)).toMatchObject({
      decision: 'allowed',
      decidedBy: people.carol,
    });
    expect(slack.api.succeeded('usergroups.users.list').map((call) => call.params.usergroup)).toContain(
      'S0ONCALL',
    );
  });

  it('refuses a click from someone who is not an approver and changes nothing', async () => {
    const { slack, runs, card, model } = await pendingRestart();

    await slack.click('allow', card, { user: people.mallory });

    expect(await ephemeralFor(slack, people.mallory)).toContain('You are not an approver for `ops_shell`');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(model.calls).toHaveLength(1);
    expect(slack.api.callsTo('chat.update')).toEqual([]);
    expect(await approvalRow(slack, card.requestId)).toMatchObject({ decision: null, decidedBy: null });
    expect(
      readRows(slack.databasePath, 'SELECT actor, kind FROM audit_events WHERE kind = ?', 'approval.refused'),
    ).toEqual([{ actor: people.mallory, kind: 'approval.refused' }]);
  });

  it('refuses a click whose request id sits on some other message', async () => {
    const { slack, runs, card } = await pendingRestart();

    await slack.click('allow', { ...card, ts: '1767229999.000001' });

    expect(await ephemeralFor(slack, people.bob)).toContain('not on a card holdfast posted for that request');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await approvalRow(slack, card.requestId)).toMatchObject({ decision: null });
  });

  it('refuses to let the requester approve their own call', async () => {
    const { slack, runs, card } = await pendingRestart({
      env: { HOLDFAST_APPROVERS: `${people.bob},${people.alice}` },
    });

    await slack.click('allow', card, { user: people.alice });

    expect(await ephemeralFor(slack, people.alice)).toContain('you cannot approve it yourself');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await approvalRow(slack, card.requestId)).toMatchObject({ decision: null });
  });

  it('lets the requester approve their own call when the configuration allows it', async () => {
    const { slack, runs, card } = await pendingRestart({
      env: { HOLDFAST_APPROVERS: `${people.bob},${people.alice}`, HOLDFAST_ALLOW_SELF_APPROVAL: 'true' },
    });

    await slack.click('allow', card, { user: people.alice });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
    expect(await approvalRow(slack, card.requestId)).toMatchObject({
      decision: 'allowed',
      decidedBy: people.alice,
    });
  });

  it('denies: the card says who denied, the tool never runs and the model is told', async () => {
    const { slack, runs, card, model } = await pendingRestart();

    await denyWithReason(slack, card);
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(String(update.params.text)).toContain('Denied by <@U0BOB>');
    expect(approvalButtons(update.params.blocks)).toEqual([]);
    expect(runs).toEqual([]);
    const toolResult = model.calls[1]?.messages.at(-1);
    expect(toolResult).toMatchObject({ role: 'tool', toolCallId: 'call_restart' });
    expect(JSON.stringify(toolResult)).toContain('U0BOB');
  });

  it('answers a click on an expired request privately and marks the card expired', async () => {
    const clock = createTestClock(Date.now());
    const { slack, runs, card, model } = await pendingRestart({
      env: { HOLDFAST_APPROVAL_TTL: '1h' },
      now: clock.now,
    });
    clock.advance(2 * 60 * 60_000);

    await slack.click('allow', card);

    expect(await ephemeralFor(slack, people.bob)).toContain('already expired');
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(String(update.params.text)).toContain('Expired');
    expect(approvalButtons(update.params.blocks)).toEqual([]);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await approvalRow(slack, card.requestId)).toMatchObject({ decision: 'expired' });
    expect(model.calls).toHaveLength(2);
  });

  it('always allow: later calls the grant covers in this thread run without a card', async () => {
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_1']),
      reply.text('Done.'),
      reply.toolCalls(['ops_shell', { command: 'systemctl restart api' }, 'call_2']),
      reply.text('Done again.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool] });
    const threadTs = await slack.mention('please restart the web tier');
    const card = await waitForCard(slack.api, threadTs);

    await slack.click('always', card);
    const form = await nextModal(slack, 'holdfast.approval.grant', 0);
    // The form's defaults, accepted as they are: the proposed pattern, this thread, one hour.
    await submitModal(slack, form, {
      'holdfast.grant.covers': { value: { option: 'pattern' } },
      'holdfast.grant.pattern': { value: { text: 'systemctl restart *' } },
      'holdfast.grant.scope': { value: { option: 'conversation' } },
      'holdfast.grant.duration': { value: { option: '1h' } },
    });
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(String(update.params.text)).toContain('Allowed by <@U0BOB>, with a grant for later calls');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();
    await slack.reply(threadTs, 'now the api tier too');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done again.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web', 'systemctl restart api']);
    const cards = slack.api
      .callsTo('chat.postMessage')
      .filter((call) => String(call.params.text).startsWith('Approval needed'));
    expect(cards).toHaveLength(1);
    expect(readRows(slack.databasePath, 'SELECT tool_name, created_by FROM grants')).toEqual([
      { tool_name: 'ops_shell', created_by: people.bob },
    ]);
  });

  it('counts votes until the quorum is reached, then runs the tool once', async () => {
    const policyDir = tempDir('holdfast-policy-');
    const policyPath = policyDir.file('policy.yml');
    writeFileSync(policyPath, 'approvers:\n  quorum:\n    shell: 2\n');
    const { slack, runs, card } = await pendingRestart({ env: { HOLDFAST_POLICY: policyPath } });

    await slack.click('allow', card, { user: people.bob });
    expect(await ephemeralFor(slack, people.bob)).toBe('Your approval is counted. 1 more approver needed.');
    const counted = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(JSON.stringify(counted.params.blocks)).toContain('1 of 2');
    expect(approvalButtons(counted.params.blocks)).toHaveLength(4);
    expect(runs).toEqual([]);

    await slack.click('allow', card, { user: people.carol });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
    const updates = slack.api.callsTo('chat.update');
    expect(updates).toHaveLength(2);
    expect(approvalButtons(updates[1]?.params.blocks)).toEqual([]);
  });

  it('queues a message sent in the thread while waiting, and runs it after the decision', async () => {
    const { slack, runs, card, model, threadTs } = await pendingRestart();

    await slack.reply(threadTs, 'also, how full is the disk?');
    await slack.settle();
    expect(model.calls).toHaveLength(1);
    expect(readRows(slack.databasePath, 'SELECT status FROM turns ORDER BY seq')).toEqual([
      { status: 'awaiting_approval' },
      { status: 'queued' },
    ]);

    await slack.click('allow', card);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Second answer.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
    expect(model.calls).toHaveLength(3);
    expect(model.calls[2]?.messages.at(-1)).toEqual({
      role: 'user',
      content: '@alice: also, how full is the disk?',
    });
    const answers = slack.api
      .thread(channel, threadTs)
      .filter((message) => message.ts !== card.ts)
      .map((message) => message.text);
    expect(answers).toEqual(['Done.', 'Second answer.']);
    expect(readRows(slack.databasePath, 'SELECT status FROM turns ORDER BY seq')).toEqual([
      { status: 'completed' },
      { status: 'completed' },
    ]);
  });
});
