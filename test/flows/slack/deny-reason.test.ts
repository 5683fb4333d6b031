import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import {
  approvalButtons,
  countingShellTool,
  people,
  readRows,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { denyReasonCallbackId, denyWithReason, nextModal, submitModal } from './slack-modals.js';

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
  return { slack, model, runs, threadTs, card };
}

async function ephemeralFor(slack: SlackHarness, user: string): Promise<string> {
  const call = await slack.api.waitFor('chat.postEphemeral', (candidate) => candidate.params.user === user);
  return String(call.params.text);
}

describe('denying with a reason', () => {
  it('opens a form on Deny, decides nothing until it is sent, then tells the model and the thread why', async () => {
    const { slack, model, runs, card } = await pendingRestart();

    await slack.click('deny', card);
    const modal = await nextModal(slack, denyReasonCallbackId, 0);
    expect(String(modal.call.params.trigger_id)).toMatch(/^\d+\.1\./);
    expect(JSON.stringify(modal.blocks)).toContain('Reason (optional)');
    await slack.settle();
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
    });

    await submitModal(slack, modal, {
      'holdfast.deny.reason': { reason: { text: '  not during the freeze  ' } },
    });
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual([]);
    expect(String(update.params.text)).toContain('Denied by <@U0BOB> (“not during the freeze”)');
    expect(JSON.stringify(update.params.blocks)).toContain('“not during the freeze”');
    expect(approvalButtons(update.params.blocks)).toEqual([]);
    const result = model.calls[1]?.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', toolCallId: 'call_restart' });
    expect(JSON.stringify(result)).toContain('who said: \\"not during the freeze\\"');
    expect(
      readRows(slack.databasePath, 'SELECT decision, decided_by, decision_reason FROM approvals'),
    ).toEqual([{ decision: 'denied', decided_by: people.bob, decision_reason: 'not during the freeze' }]);
    const audit = readRows(
      slack.databasePath,
      `SELECT actor, json_extract(data_json, '$.reason') AS reason FROM audit_events WHERE kind = 'approval.denied'`,
    );
    expect(audit).toEqual([{ actor: people.bob, reason: 'not during the freeze' }]);
  });

  it('denies with no reason when the field is left empty, and the card says only who denied', async () => {
    const { slack, card } = await pendingRestart();

    await denyWithReason(slack, card);
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    await slack.settle();

    expect(String(update.params.text)).toMatch(/^Denied by <@U0BOB>: /);
    expect(JSON.stringify(update.params.blocks)).not.toContain('“');
    expect(readRows(slack.databasePath, 'SELECT decision_reason FROM approvals')).toEqual([
      { decision_reason: null },
    ]);
  });

  it('keeps a secret pasted into the reason off the card, the row and the model', async () => {
    const { slack, model, card } = await pendingRestart();
    const secret = `xoxb-${'1234567890'}-${'abcdefghijABCDEFGHIJ1234'}`;

    await denyWithReason(slack, card, { reason: `the token ${secret} leaked` });
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(JSON.stringify(update.params)).not.toContain(secret);
    expect(
      JSON.stringify(readRows(slack.databasePath, 'SELECT decision_reason FROM approvals')),
    ).not.toContain(secret);
    expect(JSON.stringify(model.calls[1]?.messages)).not.toContain(secret);
  });

  it('opens no form for someone who may not decide, and tells them why', async () => {
    const { slack, runs, card } = await pendingRestart();

    await slack.click('deny', card, { user: people.mallory });

    expect(await ephemeralFor(slack, people.mallory)).toContain('You are not an approver for `ops_shell`');
    await slack.settle();
    expect(slack.api.callsTo('views.open')).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('tells an approver whose form arrives after another decision who got there first', async () => {
    const { slack, runs, card } = await pendingRestart();

    await slack.click('deny', card, { user: people.carol });
    const modal = await nextModal(slack, denyReasonCallbackId, 0);
    await slack.click('allow', card, { user: people.bob });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await submitModal(
      slack,
      modal,
      { 'holdfast.deny.reason': { reason: { text: 'too risky' } } },
      {
        user: people.carol,
      },
    );

    expect(await ephemeralFor(slack, people.carol)).toMatch(/already allowed by <@U0BOB>/);
    await slack.settle();
    expect(runs).toEqual(['systemctl restart web']);
    expect(readRows(slack.databasePath, 'SELECT decision, decision_reason FROM approvals')).toEqual([
      { decision: 'allowed', decision_reason: null },
    ]);
  });

  it('refuses a form whose metadata names a card the request does not have', async () => {
    const { slack, runs, card } = await pendingRestart();

    await slack.click('deny', card);
    const modal = await nextModal(slack, denyReasonCallbackId, 0);
    const metadata = JSON.parse(modal.privateMetadata) as { origin: Record<string, unknown> };
    const forged = JSON.stringify({
      ...metadata,
      origin: { ...metadata.origin, messageTs: '1767229999.000001' },
    });
    await submitModal(
      slack,
      modal,
      { 'holdfast.deny.reason': { reason: { text: null } } },
      {
        privateMetadata: forged,
      },
    );

    expect(await ephemeralFor(slack, people.bob)).toContain('not on a card holdfast posted for that request');
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
    });
  });
});
