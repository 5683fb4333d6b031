import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { createTestClock, type TestClock } from '../../support/test-clock.js';
import {
  approvalActionBlocks,
  channel,
  countingShellTool,
  people,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';

const hour = 3_600_000;
const leads = 'S0LEADS';
const dmOf = (user: string) => `D${user.slice(1)}`;

interface Copy {
  readonly user: string;
  readonly channel: string;
  readonly ts: string;
  readonly text: string;
  /** Undefined on a copy with no buttons: its reader may not decide the request. */
  readonly requestId: string | undefined;
  readonly blockId: string | undefined;
  readonly blocks: unknown;
}

/** A copy's buttons as a click names them; only a copy with buttons can be clicked. */
function clickable(copy: Copy | undefined) {
  if (!copy?.requestId) throw new Error('this copy has no buttons');
  return { ...copy, requestId: copy.requestId, threadTs: undefined };
}

const copyHeadings = /^(Approval needed|Reminder: approval still needed|Escalated: nobody has decided)/;

/** Every card holdfast posted in someone's DM so far, oldest first. */
function copies(slack: SlackHarness): Copy[] {
  return slack.api
    .succeeded('chat.postMessage')
    .filter((call) => String(call.response.channel).startsWith('D'))
    .filter((call) => copyHeadings.test(String(call.params.text)))
    .map((call) => {
      const actions = approvalActionBlocks(call.params.blocks)[0];
      const requestId = actions?.elements[0]?.value;
      const dm = String(call.response.channel);
      return {
        user: `U${dm.slice(1)}`,
        channel: dm,
        ts: String(call.response.ts),
        text: String(call.params.text),
        requestId: typeof requestId === 'string' ? requestId : undefined,
        blockId: actions?.block_id,
        blocks: call.params.blocks,
      };
    });
}

async function pendingRequest(options: {
  clock: TestClock;
  env?: Record<string, string>;
  /** Runs before the request is made (scripted Slack failures). */
  before?: (api: SlackHarness['api']) => void;
  /** Posts get ts values of the app's time, for tests that look them up by time. */
  timelyTs?: boolean;
}) {
  const { tool, runs } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
    reply.text('Done.'),
  ]);
  const slack = await startSlackHarness({
    model,
    tools: [tool],
    now: options.clock.now,
    env: { HOLDFAST_APPROVER_DMS: '10', ...options.env },
    delivery: { backoffMs: () => 10 },
    ...(options.timelyTs ? { firstTsSeconds: Math.floor(options.clock.now() / 1_000) } : {}),
  });
  slack.api.setUser('U0DAN', { name: 'dan' });
  slack.api.setGroupMembers(leads, ['U0DAN']);
  options.before?.(slack.api);
  const threadTs = await slack.mention('please restart the web tier');
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  return { slack, model, tool, runs, threadTs, card };
}

/** A sweep at the app's clock, as the periodic one would run it, and whatever it sends. */
async function sweep(slack: SlackHarness): Promise<void> {
  await slack.holdfast.runtime.recover();
  await slack.settle();
}

describe('reaching approvers where they are', () => {
  it('copies the card to each approver by DM, never to the requester who may not approve it', async () => {
    const clock = createTestClock(Date.now());
    const { slack, card } = await pendingRequest({
      clock,
      // alice is an approver too, but she asked: a card she could not use is not sent to her.
      env: { HOLDFAST_APPROVERS: `${people.bob},${people.alice}` },
    });

    const opened = slack.api.succeeded('conversations.open').map((call) => call.params.users);
    expect(opened.sort()).toEqual([people.bob, people.carol].sort());
    const sent = copies(slack);
    expect(sent.map((copy) => copy.channel).sort()).toEqual([dmOf(people.bob), dmOf(people.carol)].sort());
    for (const copy of sent) {
      expect(copy.requestId).toBe(card.requestId);
      expect(copy.blockId).toBe(card.blockId);
      expect(copy.text).toMatch(
        /^Approval needed: ops_shell `systemctl restart web` requested by <@U0ALICE>/,
      );
    }
  });

  it("opens each approver's DM once, however many requests it carries", async () => {
    const { tool } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_web']),
      reply.toolCalls(['ops_shell', { command: 'systemctl restart db' }, 'call_db']),
    ]);
    const slack = await startSlackHarness({
      model,
      tools: [tool],
      env: { HOLDFAST_APPROVER_DMS: '10' },
      delivery: { backoffMs: () => 10 },
    });
    for (const text of ['please restart the web tier', 'and the database']) {
      await waitForCard(slack.api, await slack.mention(text));
      await slack.settle();
    }
    // The DM between holdfast and a person never changes: opening it again costs a call Slack rate-limits.
    const opened = slack.api.succeeded('conversations.open').map((call) => call.params.users);
    expect(opened.sort()).toEqual([people.bob, people.carol].sort());
    const dms = [dmOf(people.bob), dmOf(people.carol)].sort();
    expect(
      copies(slack)
        .map((copy) => copy.channel)
        .sort(),
    ).toEqual([...dms, ...dms].sort());
  });

  it('leaves out an approver Slack will not open a DM with, and holds up nothing', async () => {
    const clock = createTestClock(Date.now());
    const { slack, model, card } = await pendingRequest({
      clock,
      before: (api) =>
        api.failMatching(
          'conversations.open',
          (params) => params.users === people.carol,
          { type: 'error', error: 'user_not_found' },
          10,
        ),
    });

    expect(copies(slack).map((copy) => copy.user)).toEqual([people.bob]);
    expect(
      slack.log.entries.some((entry) => entry.msg === 'cannot reach an approver by direct message'),
    ).toBe(true);
    await slack.click('allow', card);
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    expect(model.calls).toHaveLength(2);
  });

  it('posts each copy once when Slack posted one but its answer was lost', async () => {
    const clock = createTestClock(Date.now());
    const { slack } = await pendingRequest({
      clock,
      timelyTs: true,
      before: (api) => {
        const held = api.holdNext('chat.postMessage', (call) => call.params.channel === dmOf(people.bob));
        void held.arrived.then(() => held.drop());
      },
    });
    await slack.waitForLog((entry) => entry.msg === 'delivery failed; retrying later');
    clock.advance(1_000); // the retry is due on the app's clock
    await slack.waitForLog((entry) => entry.msg === 'found a delivery a crash left unrecorded');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.channel === dmOf(people.carol));
    await slack.settle();

    expect(
      copies(slack)
        .map((copy) => copy.user)
        .sort(),
    ).toEqual([people.bob, people.carol].sort());
    const row = await slack.holdfast.runtime.store.approvals.get(copies(slack)[0]?.requestId ?? '');
    expect(row?.cards.map((card) => card.channel).sort()).toEqual(
      [channel, dmOf(people.bob), dmOf(people.carol)].sort(),
    );
  });

  it('rewrites every copy after one decision, and a stale copy says who decided', async () => {
    const clock = createTestClock(Date.now());
    const { slack, card, runs } = await pendingRequest({ clock });
    const [bobs, carols] = [people.bob, people.carol].map((user) =>
      copies(slack).find((copy) => copy.user === user),
    );
    if (!bobs || !carols) throw new Error('both approvers should have a copy');

    // bob decides from his phone, in his DM.
    await slack.click('allow', clickable(bobs));
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
    for (const where of [card, bobs, carols]) {
      const message = slack.api.message(where.channel, where.ts);
      expect(message?.text).toMatch(/^Allowed by <@U0BOB>/);
      expect(approvalActionBlocks(message?.blocks)).toEqual([]);
    }
    expect(slack.api.callsTo('chat.update')).toHaveLength(3);
    // Every copy links the same thread, and a message's link never changes: Slack is asked once.
    expect(slack.api.callsTo('chat.getPermalink')).toHaveLength(1);

    await slack.click('allow', clickable(carols), { user: people.carol });
    const told = await slack.api.waitFor(
      'chat.postEphemeral',
      (call) => call.params.user === people.carol && call.params.channel === carols.channel,
    );
    expect(String(told.params.text)).toMatch(/already allowed by <@U0BOB>/);
    await slack.settle();
    expect(runs).toHaveLength(1);
  });

  it('reminds at half the expiry and escalates near the end, each once, across restarts', async () => {
    const clock = createTestClock(Date.now());
    const { slack, model, tool, card } = await pendingRequest({
      clock,
      env: { HOLDFAST_ESCALATION_GROUP: leads },
    });
    const occasion = (prefix: string) => copies(slack).filter((copy) => copy.text.startsWith(prefix));
    expect(copies(slack)).toHaveLength(2);

    clock.advance(12 * hour - 1);
    await sweep(slack);
    expect(copies(slack)).toHaveLength(2);

    clock.advance(1);
    await sweep(slack);
    await sweep(slack);
    expect(
      occasion('Reminder: approval still needed')
        .map((copy) => copy.user)
        .sort(),
    ).toEqual([people.bob, people.carol].sort());

    await slack.restart({ model, tools: [tool] });
    await sweep(slack);
    expect(occasion('Reminder')).toHaveLength(2);
    expect(occasion('Escalated')).toEqual([]);

    clock.advance(Math.ceil(9.6 * hour));
    await sweep(slack);
    await slack.restart({ model, tools: [tool] });
    await sweep(slack);
    const escalated = occasion('Escalated: nobody has decided');
    expect(escalated.map((copy) => copy.user)).toEqual(['U0DAN']);
    // Dan leads the team but is no approver: his copy shows the request and who decides, not buttons.
    expect(escalated[0]?.requestId).toBeUndefined();
    expect(JSON.stringify(escalated[0]?.blocks)).toContain('You cannot decide this request.');
    expect(copies(slack)).toHaveLength(5);
    for (const copy of copies(slack).filter((copy) => copy.user !== 'U0DAN'))
      expect(copy.requestId).toBe(card.requestId);
  });

  it('keeps every copy working until the request is decided, and an expired one reads as such', async () => {
    const clock = createTestClock(Date.now());
    const { slack, card } = await pendingRequest({ clock, env: { HOLDFAST_ESCALATION_GROUP: leads } });
    clock.advance(22 * hour);
    await sweep(slack);
    const all = copies(slack);
    expect(all).toHaveLength(5);

    clock.advance(2 * hour);
    await sweep(slack);

    for (const where of [card, ...all]) {
      const message = slack.api.message(where.channel, where.ts);
      expect(message?.text).toMatch(/^Expired, nobody decided/);
      expect(message?.text).not.toMatch(/denied/i);
      expect(approvalActionBlocks(message?.blocks)).toEqual([]);
    }
  });

  it('decides from a reminder, and rewrites the thread card and every copy', async () => {
    const clock = createTestClock(Date.now());
    const { slack, card, runs } = await pendingRequest({ clock });
    clock.advance(13 * hour);
    await sweep(slack);
    const reminder = copies(slack).find(
      (copy) => copy.user === people.carol && copy.text.startsWith('Reminder'),
    );
    if (!reminder) throw new Error('carol should have been reminded');

    await slack.click('allow', clickable(reminder), { user: people.carol });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    expect(runs).toEqual(['systemctl restart web']);
    for (const where of [card, ...copies(slack)]) {
      expect(slack.api.message(where.channel, where.ts)?.text).toMatch(/^Allowed by <@U0CAROL>/);
    }
    expect(slack.api.thread(channel, card.threadTs).some((message) => message.text === 'Done.')).toBe(true);
  });
});
