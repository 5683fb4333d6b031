import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import {
  approvalButtons,
  channel,
  countingShellTool,
  oncallGroup,
  people,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { denyWithReason } from './slack-modals.js';

const secretChannel = 'C0SECRET';
const aliceDm = 'D0ALICE';

/** Enough members that the list comes in several pages; mallory is on the last one. */
const secretMembers = [
  people.alice,
  people.bob,
  ...Array.from({ length: 450 }, (_, i) => `U0FILL${String(i).padStart(4, '0')}`),
  people.mallory,
];

async function workspace() {
  const { tool, runs } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'cat /srv/secret/plan.txt' }, 'call_secret']),
    reply.text('Done in the private channel.'),
    reply.toolCalls(['ops_shell', { command: 'cat ~/.private-notes' }, 'call_dm']),
    reply.text('Done in the DM.'),
    reply.toolCalls(['ops_shell', { command: 'uptime' }, 'call_ops']),
    reply.text('Done in ops.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool] });
  // carol is neither the requester nor an approver in these tests: only bob approves.
  slack.api.setGroupMembers(oncallGroup, []);
  slack.api.setChannel(secretChannel, { name: 'secret', isPrivate: true, members: secretMembers });
  slack.api.setChannel(aliceDm, { name: 'alice', kind: 'im', members: [people.alice] });
  return { slack, runs };
}

async function decideIn(
  slack: SlackHarness,
  start: () => Promise<string>,
  action: 'allow' | 'deny',
  answer: string,
): Promise<void> {
  const threadTs = await start();
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  if (action === 'deny') await denyWithReason(slack, card);
  else await slack.click(action, card);
  await slack.api.waitFor('chat.postMessage', (call) => call.params.text === answer);
  await slack.settle();
}

async function homeFor(slack: SlackHarness, user: string): Promise<string> {
  const before = slack.api.callsTo('views.publish').length;
  await slack.sendEvent({ type: 'app_home_opened', user, channel: `D0${user}`, tab: 'home' });
  const publish = await slack.api.waitFor(
    'views.publish',
    (call) => call.params.user_id === user && slack.api.callsTo('views.publish').indexOf(call) >= before,
  );
  return JSON.stringify((publish.params.view as { blocks: unknown[] }).blocks);
}

async function inboxFor(slack: SlackHarness, user: string, channelId: string, text = '') {
  const name = `inbox-${user}-${channelId}-${text || 'here'}`;
  const response = await slack.command(text, { user, channel: channelId, responseName: name });
  expect(response.status).toBe(200);
  return (await slack.api.waitForResponse((post) => post.name === name)).body;
}

describe('who sees which approval records', () => {
  it('App Home shows carol no decisions from a private channel or a DM she is not part of', async () => {
    const { slack } = await workspace();
    await decideIn(
      slack,
      () => slack.mention('read the plan', { channel: secretChannel }),
      'allow',
      'Done in the private channel.',
    );
    await decideIn(
      slack,
      () => slack.direct('read my notes', { channel: aliceDm }),
      'deny',
      'Done in the DM.',
    );
    await decideIn(slack, () => slack.mention('how long is the uptime'), 'allow', 'Done in ops.');

    const carol = await homeFor(slack, people.carol);
    expect(carol).toContain('uptime');
    expect(carol).not.toContain('plan.txt');
    expect(carol).not.toContain('private-notes');

    const bob = await homeFor(slack, people.bob);
    expect(bob).toContain('plan.txt');
    expect(bob).toContain('private-notes');
    const alice = await homeFor(slack, people.alice);
    expect(alice).toContain('plan.txt');
    expect(alice).toContain('private-notes');
  });

  it('a member of the channel (on a later page of its members) sees what waits there', async () => {
    const { slack } = await workspace();
    const threadTs = await slack.mention('read the plan', { channel: secretChannel });
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    const forMallory = await inboxFor(slack, people.mallory, secretChannel);

    expect(forMallory.text).toBe('1 approval waiting in this channel.');
    // She sees the request and its state; she is no approver, so it has no buttons for her.
    expect(approvalButtons(forMallory.blocks)).toEqual([]);
    expect(JSON.stringify(forMallory.blocks)).toContain('You cannot decide this request.');
    expect(await slack.holdfast.runtime.store.approvals.get(card.requestId)).toMatchObject({
      decision: null,
    });
    expect(slack.api.callsTo('conversations.members').length).toBeGreaterThan(1);
  });

  it('/approvals in a channel the viewer is not a member of shows nothing', async () => {
    const { slack } = await workspace();
    const threadTs = await slack.mention('read the plan', { channel: secretChannel });
    await waitForCard(slack.api, threadTs);
    await slack.settle();

    const forCarol = await inboxFor(slack, people.carol, secretChannel);

    expect(forCarol.text).toBe('Nothing is waiting for approval in this channel.');
    expect(approvalButtons(forCarol.blocks)).toEqual([]);
    expect(JSON.stringify(forCarol)).not.toContain('plan.txt');
  });

  it('/approvals in a public channel still lists its records to its members', async () => {
    const { slack } = await workspace();
    const threadTs = await slack.mention('how long is the uptime', { channel });
    await waitForCard(slack.api, threadTs);
    await slack.settle();

    const forCarol = await inboxFor(slack, people.carol, channel);

    expect(forCarol.text).toBe('1 approval waiting in this channel.');
  });
});
