import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hashArguments } from '../../../src/agent/hash-arguments.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { tempDir } from '../../support/temp-dir.js';
import {
  approvalActionBlocks,
  approvalButtons,
  countingShellTool,
  type PostedCard,
  people,
  readRows,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { nextModal, type OpenedModal, submitModal } from './slack-modals.js';

const editCallbackId = 'holdfast.approval.edit';

async function pendingRestart(policy?: string) {
  const counting = countingShellTool();
  const { tool, runs } = counting;
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
    reply.text('Done.'),
  ]);
  const env: Record<string, string> = {};
  if (policy) {
    const policyPath = tempDir('holdfast-policy-').file('policy.yml');
    writeFileSync(policyPath, policy);
    env.HOLDFAST_POLICY = policyPath;
  }
  const slack = await startSlackHarness({ model, tools: [tool], env });
  const threadTs = await slack.mention('please restart the web tier');
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  return { slack, model, runs, threadTs, card, tool };
}

async function openEditForm(slack: SlackHarness, card: PostedCard, user: string = people.bob) {
  const before = slack.api.callsTo('views.open').length;
  const clicked = await slack.click('edit', card, { user });
  expect(clicked.status).toBe(200);
  return nextModal(slack, editCallbackId, before);
}

function submitCommand(slack: SlackHarness, modal: OpenedModal, command: string, user: string = people.bob) {
  return submitModal(slack, modal, { 'holdfast.edit.0': { value: { text: command } } }, { user });
}

async function ephemeralFor(slack: SlackHarness, user: string, after = 0): Promise<string> {
  const call = await slack.api.waitFor(
    'chat.postEphemeral',
    (candidate) =>
      candidate.params.user === user && slack.api.callsTo('chat.postEphemeral').indexOf(candidate) >= after,
  );
  return String(call.params.text);
}

/** The card as the latest `chat.update` of it left it, with the block id its buttons now carry. */
function latestCard(slack: SlackHarness, card: PostedCard): PostedCard {
  const update = slack.api
    .callsTo('chat.update')
    .filter((call) => call.params.ts === card.ts)
    .at(-1);
  const block = approvalActionBlocks(update?.params.blocks)[0];
  if (!block) throw new Error('the card has no buttons left');
  return { ...card, blockId: block.block_id };
}

const editedHash = (command: string) => hashArguments(JSON.stringify({ command }));

describe('edit, then approve', () => {
  it('offers Edit… on the card and opens the arguments in a form, deciding nothing yet', async () => {
    const { slack, card, runs } = await pendingRestart();

    const buttons = approvalButtons(card.call.params.blocks).map((button) => button.action_id);
    expect(buttons).toContain('holdfast.approval.edit');
    const modal = await openEditForm(slack, card);
    expect(modal.blocks).toContainEqual(
      expect.objectContaining({
        type: 'input',
        block_id: 'holdfast.edit.0',
        element: expect.objectContaining({ initial_value: 'systemctl restart web' }),
      }),
    );
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
    });
    // One listener answers the click: no second acknowledgement, so nothing is logged as a problem.
    expect(slack.log.problems()).toEqual([]);
  });

  it('runs the edited call only, keeps both calls, audits the edit and tells the model', async () => {
    const { slack, model, runs, card } = await pendingRestart();

    const submitted = await submitCommand(slack, await openEditForm(slack, card), 'systemctl status web');
    expect(submitted.status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual(['systemctl status web']);
    const rows = readRows(
      slack.databasePath,
      `SELECT decision, decided_by, args_hash, summary,
         json_extract(details_json, '$.arguments.command') AS command,
         json_extract(details_json, '$.edit.proposedArguments.command') AS proposed FROM approvals`,
    );
    expect(rows).toEqual([
      {
        decision: 'allowed',
        decided_by: people.bob,
        args_hash: editedHash('systemctl status web'),
        summary: 'run `systemctl status web`',
        command: 'systemctl status web',
        proposed: 'systemctl restart web',
      },
    ]);
    // The transcript keeps the proposal in the assistant message and the edit with the result.
    const calls = readRows(
      slack.databasePath,
      `SELECT tool_calls_json FROM messages WHERE role = 'assistant' AND tool_calls_json IS NOT NULL`,
    );
    expect(String(calls[0]?.tool_calls_json)).toContain('systemctl restart web');
    const result = model.calls[1]?.messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', toolCallId: 'call_restart' });
    const content = String((result as { content: string }).content);
    expect(content).toMatch(
      /^ran: systemctl status web\n\nEdited before approval by bob: changed `command` from "systemctl restart web" to "systemctl status web"\.\n/,
    );
    expect(content).not.toContain('U0BOB');
    expect(
      readRows(
        slack.databasePath,
        `SELECT actor, kind FROM audit_events WHERE kind LIKE 'approval.%' ORDER BY id`,
      ),
    ).toEqual([
      { actor: people.alice, kind: 'approval.requested' },
      { actor: people.bob, kind: 'approval.edited' },
      { actor: people.bob, kind: 'approval.allowed' },
    ]);
    const update = slack.api.callsTo('chat.update').find((call) => call.params.ts === card.ts);
    const shown = JSON.stringify(update?.params.blocks);
    expect(shown).toContain('systemctl status web');
    expect(shown).toContain('Arguments edited by <@U0BOB>. Proposed: `systemctl restart web`');
    expect(approvalButtons(update?.params.blocks)).toEqual([]);
  });

  it('starts the quorum over and refuses a click made for the old arguments', async () => {
    const { slack, runs, card } = await pendingRestart('approvers:\n  quorum:\n    shell: 2\n');

    await slack.click('allow', card, { user: people.carol });
    expect(await ephemeralFor(slack, people.carol)).toBe('Your approval is counted. 1 more approver needed.');
    const before = slack.api.callsTo('chat.postEphemeral').length;
    await submitCommand(slack, await openEditForm(slack, card), 'systemctl status web');
    expect(await ephemeralFor(slack, people.bob, before)).toMatch(
      /^Your edit is saved and counts as your approval/,
    );
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
      approvedBy: [people.bob],
      argsHash: editedHash('systemctl status web'),
    });

    // Carol's screen still shows the card for the proposed arguments.
    const stale = slack.api.callsTo('chat.postEphemeral').length;
    await slack.click('allow', card, { user: people.carol });
    expect(await ephemeralFor(slack, people.carol, stale)).toContain(
      '<@U0BOB> edited the arguments of this request after this button was made, so nothing was changed',
    );
    await slack.settle();
    expect(runs).toEqual([]);
    expect(
      readRows(
        slack.databasePath,
        `SELECT json_extract(data_json, '$.reason') AS reason FROM audit_events WHERE kind = 'approval.refused'`,
      ),
    ).toEqual([{ reason: 'arguments-mismatch' }]);

    await slack.click('allow', latestCard(slack, card), { user: people.carol });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();
    expect(runs).toEqual(['systemctl status web']);
  });

  it('runs the edited call after a restart, from what the database holds', async () => {
    const { slack, runs, card, tool } = await pendingRestart('approvers:\n  quorum:\n    shell: 2\n');
    await submitCommand(slack, await openEditForm(slack, card), 'systemctl status web');
    await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    await slack.settle();

    const next = new ScriptedChatModel([reply.text('Done.')]);
    await slack.restart({ model: next, tools: [tool] });
    await slack.click('allow', latestCard(slack, card), { user: people.carol });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual(['systemctl status web']);
    expect(next.calls).toHaveLength(1);
    expect(JSON.stringify(next.calls[0]?.messages.at(-1))).toContain('Edited before approval');
  });

  it('refuses an edit into a call a deny rule blocks, in the form, and changes nothing', async () => {
    const { slack, runs, card } = await pendingRestart(
      'rules:\n  - tool: ops_shell\n    match: { command: "rm *" }\n    action: deny\n    reason: nothing is deleted from chat\n',
    );

    const answer = await submitCommand(slack, await openEditForm(slack, card), 'rm -rf /srv/web');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual({
      response_action: 'errors',
      errors: {
        'holdfast.edit.0':
          'Blocked by policy: nothing is deleted from chat. Deny rules apply to edited calls too. Nothing changed.',
      },
    });
    await slack.settle();
    expect(runs).toEqual([]);
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
      edit: null,
      arguments: { command: 'systemctl restart web' },
      approvedBy: [],
    });
    expect(slack.api.callsTo('chat.update').filter((call) => call.params.ts === card.ts)).toEqual([]);
    expect(
      readRows(
        slack.databasePath,
        `SELECT actor, json_extract(data_json, '$.reason') AS reason, json_extract(data_json, '$.action') AS action,
           json_extract(data_json, '$.problem') AS problem
         FROM audit_events WHERE kind = 'approval.refused'`,
      ),
    ).toEqual([{ actor: people.bob, reason: 'edit-refused', action: 'edit', problem: 'denied-by-policy' }]);
  });

  it('opens no form for someone who may not approve, and tells them why', async () => {
    const { slack, runs, card } = await pendingRestart();

    await slack.click('edit', card, { user: people.alice });

    expect(await ephemeralFor(slack, people.alice)).toContain('cannot approve it yourself');
    await slack.settle();
    expect(slack.api.callsTo('views.open')).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('keeps a secret typed into the edit off the card and away from the model', async () => {
    const { slack, model, runs, card } = await pendingRestart();
    const secret = `xoxb-${'1234567890'}-${'abcdefghijABCDEFGHIJ1234'}`;

    await submitCommand(
      slack,
      await openEditForm(slack, card),
      `curl -H "token: ${secret}" https://ops.test`,
    );
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual([`curl -H "token: ${secret}" https://ops.test`]);
    const update = slack.api.callsTo('chat.update').find((call) => call.params.ts === card.ts);
    expect(JSON.stringify(update?.params)).not.toContain(secret);
    expect(JSON.stringify(update?.params)).toContain('[redacted');
    expect(JSON.stringify(model.calls[1]?.messages)).not.toContain(secret);
    expect(JSON.stringify(model.calls[1]?.messages)).toContain('Edited before approval');
    expect(JSON.stringify(slack.api.calls.map((call) => call.params))).not.toContain(secret);
  });
});
