import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestClock } from '../../support/test-clock.js';
import {
  approvalActionBlocks,
  channel,
  countingShellTool,
  type PostedCard,
  people,
  readRows,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { nextModal, type OpenedModal, submitModal } from './slack-modals.js';

const grantCallbackId = 'holdfast.approval.grant';

/** Clicks Always allow on the card, and returns the grant form it opened. */
async function openGrantForm(slack: SlackHarness, card: PostedCard): Promise<OpenedModal> {
  const before = slack.api.callsTo('views.open').length;
  await slack.click('always', card);
  return nextModal(slack, grantCallbackId, before);
}

/** Every answer and notice in the thread, cards left out. */
function threadTexts(slack: SlackHarness, threadTs: string): string[] {
  return slack.api
    .thread(channel, threadTs)
    .map((message) => message.text)
    .filter((text) => !text.startsWith('Approval needed') && !text.includes('Allowed by'));
}

/** The newest approval card in the thread, as a click needs it. */
function latestCard(slack: SlackHarness, threadTs: string): PostedCard {
  const call = slack.api
    .succeeded('chat.postMessage')
    .filter((candidate) => candidate.params.thread_ts === threadTs)
    .filter((candidate) => String(candidate.params.text).startsWith('Approval needed'))
    .at(-1);
  const actions = approvalActionBlocks(call?.params.blocks)[0];
  if (!call || !actions) throw new Error('no approval card in the thread');
  return {
    requestId: String(actions.elements[0]?.value),
    blockId: actions.block_id,
    channel,
    ts: String(call.response.ts),
    threadTs,
    call,
  };
}

async function answered(slack: SlackHarness, text: string): Promise<void> {
  await slack.api.waitFor('chat.postMessage', (call) => call.params.text === text);
  await slack.settle();
}

function kubectl(...commands: string[]) {
  const steps = commands.flatMap((command, index) => [
    reply.toolCalls(['ops_shell', { command }, `call_${index + 1}`]),
    reply.text(`Answer ${index + 1}.`),
  ]);
  return new ScriptedChatModel(steps);
}

describe('Always allow, as a grant that fits', () => {
  it('offers a narrow grant by default, and a call it covers runs without a card and says so', async () => {
    const clock = createTestClock(Date.now());
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: kubectl('kubectl get pods -n web', 'kubectl get nodes'),
      tools: [tool],
      now: clock.now,
    });
    const threadTs = await slack.mention('what runs in web?');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    const form = await openGrantForm(slack, card);
    expect(JSON.stringify(form.blocks)).toContain('"initial_value":"kubectl get *"');
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
    });
    await submitModal(slack, form, {
      'holdfast.grant.covers': { value: { option: 'pattern' } },
      'holdfast.grant.pattern': { value: { text: 'kubectl get *' } },
      'holdfast.grant.scope': { value: { option: 'conversation' } },
      'holdfast.grant.duration': { value: { option: '1h' } },
      'holdfast.grant.uses': { value: { text: null } },
    });
    await answered(slack, 'Answer 1.');

    await slack.reply(threadTs, 'and the nodes?');
    await answered(slack, 'Answer 2.');

    expect(runs).toEqual(['kubectl get pods -n web', 'kubectl get nodes']);
    const cards = slack.api
      .succeeded('chat.postMessage')
      .filter((call) => String(call.params.text).startsWith('Approval needed'));
    expect(cards).toHaveLength(1);
    const notice = threadTexts(slack, threadTs).find((text) => text.includes('ran without asking'));
    expect(notice).toContain(
      "`kubectl get nodes` ran without asking, under <@U0BOB>'s grant for `ops_shell` calls whose " +
        'command matches `kubectl get *` in this thread, until',
    );
    const scopeOf = (kind: string) =>
      readRows(
        slack.databasePath,
        `SELECT actor, json_extract(data_json, '$.scope') AS scope, json_extract(data_json, '$.match.command') AS pattern,
           json_extract(data_json, '$.toolCallId') AS call FROM audit_events WHERE kind = '${kind}'`,
      );
    expect(scopeOf('grant.created')).toEqual([
      { actor: people.bob, scope: 'conversation', pattern: 'kubectl get *', call: null },
    ]);
    expect(scopeOf('grant.used')).toEqual([
      { actor: people.bob, scope: 'conversation', pattern: 'kubectl get *', call: 'call_2' },
    ]);
    const logged = (msg: string) => slack.log.entries.find((entry) => entry.msg === msg);
    expect(logged('grant created')).toMatchObject({
      grantedBy: people.bob,
      tool: 'ops_shell',
      scope: 'conversation',
      covers: { match: { command: 'kubectl get *' } },
    });
    expect(logged('allowed by a grant')).toMatchObject({
      grantedBy: people.bob,
      scope: 'conversation',
      covers: { match: { command: 'kubectl get *' } },
    });
  });

  it('asks again for a call the pattern does not cover, and for any call once the grant expired', async () => {
    const clock = createTestClock(Date.now());
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: kubectl('kubectl get pods', 'kubectl delete pod web-1', 'kubectl get pods'),
      tools: [tool],
      now: clock.now,
    });
    const threadTs = await slack.mention('what runs?');
    const first = await waitForCard(slack.api, threadTs);
    await slack.settle();
    await submitModal(slack, await openGrantForm(slack, first), {
      'holdfast.grant.covers': { value: { option: 'pattern' } },
      'holdfast.grant.pattern': { value: { text: 'kubectl get *' } },
      'holdfast.grant.duration': { value: { option: '1h' } },
    });
    await answered(slack, 'Answer 1.');

    await slack.reply(threadTs, 'delete web-1');
    await slack.settle();
    expect(runs).toEqual(['kubectl get pods']);
    const pendingDelete = await slack.holdfast.runtime.store.approvals.pending();
    expect(pendingDelete.map((approval) => approval.toolCallId)).toEqual(['call_2']);
    await slack.click('allow', latestCard(slack, threadTs));
    await answered(slack, 'Answer 2.');

    clock.advance(61 * 60_000);
    await slack.reply(threadTs, 'pods again');
    await slack.settle();
    const pending = await slack.holdfast.runtime.store.approvals.pending();
    expect(pending.map((approval) => approval.toolCallId)).toEqual(['call_3']);
    expect(runs).toEqual(['kubectl get pods', 'kubectl delete pod web-1']);
  });

  it('sends a pattern that does not cover the call back to the form, and decides nothing', async () => {
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({ model: kubectl('kubectl get pods'), tools: [tool] });
    const threadTs = await slack.mention('what runs?');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    const response = await submitModal(slack, await openGrantForm(slack, card), {
      'holdfast.grant.covers': { value: { option: 'pattern' } },
      'holdfast.grant.pattern': { value: { text: 'kubectl delete *' } },
    });

    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toMatchObject({
      response_action: 'errors',
      errors: { 'holdfast.grant.pattern': expect.stringContaining('does not cover') },
    });
    await slack.settle();
    expect(runs).toEqual([]);
    expect(readRows(slack.databasePath, 'SELECT count(*) AS n FROM grants')).toEqual([{ n: 0 }]);
  });

  it('lets a deny rule win over a grant that would cover the call', async () => {
    const policyPath = tempDir('holdfast-policy-').file('policy.yml');
    writeFileSync(
      policyPath,
      'rules:\n  - tool: ops_shell\n    match: { command: "kubectl get secrets*" }\n    action: deny\n    reason: secrets stay in the vault\n',
    );
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: kubectl('kubectl get pods', 'kubectl get secrets -A'),
      tools: [tool],
      env: { HOLDFAST_POLICY: policyPath },
    });
    const threadTs = await slack.mention('what runs?');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();
    await submitModal(slack, await openGrantForm(slack, card), {
      'holdfast.grant.covers': { value: { option: 'pattern' } },
      'holdfast.grant.pattern': { value: { text: 'kubectl get *' } },
    });
    await answered(slack, 'Answer 1.');

    await slack.reply(threadTs, 'and the secrets');
    await answered(slack, 'Answer 2.');

    expect(runs).toEqual(['kubectl get pods']);
    expect(
      readRows(slack.databasePath, `SELECT count(*) AS n FROM audit_events WHERE kind = 'grant.used'`),
    ).toEqual([{ n: 0 }]);
  });
});

/** A signed click on a grant's Revoke button, in an ephemeral `/approvals grants` reply. */
function clickRevoke(slack: SlackHarness, grantId: string, user: string, responseName: string) {
  return slack.post({
    payload: {
      type: 'block_actions',
      team: { id: slack.api.identity.teamId, domain: 'holdfast-test' },
      user: {
        id: user,
        username: user.toLowerCase(),
        name: user.toLowerCase(),
        team_id: slack.api.identity.teamId,
      },
      api_app_id: 'A0HOLDFAST',
      token: 'legacy-verification-token',
      trigger_id: `${Date.now()}.1.revoke`,
      container: {
        type: 'message',
        message_ts: '1767229000.000001',
        channel_id: channel,
        is_ephemeral: true,
      },
      channel: { id: channel, name: 'ops' },
      response_url: slack.api.responseUrl(responseName),
      actions: [
        {
          action_id: 'holdfast.grant.revoke',
          block_id: 'grant',
          value: grantId,
          type: 'button',
          action_ts: `${slack.nowSeconds()}.000100`,
        },
      ],
    },
  });
}

describe('standing grants, listed and revoked', () => {
  it('lists a grant in /approvals grants and the App Home, and once revoked it lets nothing through', async () => {
    const { tool, runs } = countingShellTool();
    const slack = await startSlackHarness({
      model: kubectl('kubectl get pods', 'kubectl get nodes'),
      tools: [tool],
    });
    const threadTs = await slack.mention('what runs?');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();
    await submitModal(slack, await openGrantForm(slack, card), {
      'holdfast.grant.covers': { value: { option: 'pattern' } },
      'holdfast.grant.pattern': { value: { text: 'kubectl get *' } },
      'holdfast.grant.scope': { value: { option: 'channel' } },
      'holdfast.grant.duration': { value: { option: 'revoked' } },
    });
    await answered(slack, 'Answer 1.');

    await slack.command('grants', { user: people.carol, responseName: 'grants-carol' });
    const listed = await slack.api.waitForResponse((post) => post.name === 'grants-carol');
    const listing = JSON.stringify(listed.body.blocks);
    expect(listing).toContain('`ops_shell` `kubectl get *` · <#C0OPS>');
    expect(listing).toContain('until revoked');
    const revoke = (listed.body.blocks as Array<{ accessory?: { action_id: string; value: string } }>).find(
      (block) => block.accessory?.action_id === 'holdfast.grant.revoke',
    );
    expect(revoke).toBeDefined();

    await slack.sendEvent({ type: 'app_home_opened', user: people.bob, channel: 'D0BOB', tab: 'home' });
    const home = await slack.api.waitFor('views.publish', (call) => call.params.user_id === people.bob);
    expect(JSON.stringify(home.params.view)).toContain('Your standing grants');
    expect(JSON.stringify(home.params.view)).toContain('kubectl get *');

    await clickRevoke(slack, revoke?.accessory?.value ?? '', people.mallory, 'revoke-mallory');
    const refused = await slack.api.waitForResponse((post) => post.name === 'revoke-mallory');
    expect(String(refused.body.text)).toContain('You cannot revoke this grant');

    await clickRevoke(slack, revoke?.accessory?.value ?? '', people.carol, 'revoke-carol');
    const revoked = await slack.api.waitForResponse((post) => post.name === 'revoke-carol');
    expect(String(revoked.body.text)).toContain('Revoked');
    expect(
      readRows(
        slack.databasePath,
        `SELECT actor, json_extract(data_json, '$.scope') AS scope FROM audit_events WHERE kind = 'grant.revoked'`,
      ),
    ).toEqual([{ actor: people.carol, scope: 'channel' }]);
    expect(slack.log.entries.find((entry) => entry.msg === 'grant revoked')).toMatchObject({
      user: people.carol,
      scope: 'channel',
    });

    await slack.reply(threadTs, 'and the nodes?');
    await slack.settle();
    expect(runs).toEqual(['kubectl get pods']);
    const pending = await slack.holdfast.runtime.store.approvals.pending();
    expect(pending.map((approval) => approval.toolCallId)).toEqual(['call_2']);
  });
});
