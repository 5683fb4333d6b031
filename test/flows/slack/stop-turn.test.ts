import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatModel } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import {
  channel,
  countingShellTool,
  eventually,
  people,
  readRows,
  type SlackHarness,
  startSlackHarness,
} from './slack-harness.js';
import { alive, slowJob } from './slow-job.js';
import { clickStop, clickStopInReply, stopButtonOf, stopButtonsIn } from './stop-clicks.js';

const live = { showAfterMs: 0, streamIntervalMs: 0, updateIntervalMs: 0 };

async function approvalsReply(slack: SlackHarness, user: string, name: string) {
  expect((await slack.command('', { user, responseName: name })).status).toBe(200);
  return (await slack.api.waitForResponse((post) => post.name === name)).body as Record<string, unknown>;
}

describe("Slack's stop button on the agent session", () => {
  it('ends the running turn like Stop: the command is killed, the turn ends stopped, the session closed', async () => {
    const job = slowJob('holdfast-session-stop-');
    const model: ChatModel = new ScriptedChatModel([reply.toolCalls(['slow_job', {}])]);
    const slack = await startSlackHarness({ model, tools: [job.tool], workingAfterMs: 0 });

    const threadTs = await slack.mention('run the nightly job');
    const jobPid = await job.started();
    await slack.api.waitFor('agents.sessions.setStatus', (call) => call.params.status === 'processing');

    const sent = await slack.sendEvent({
      type: 'agent_session_stopped',
      channel,
      thread_ts: threadTs,
      user: people.alice,
      streaming_message_ts: [],
      event_ts: '1767225999.000100',
    });
    expect(sent.status).toBe(200);
    await eventually(() => !alive(jobPid), 'the job to be killed');
    await slack.api.waitFor('chat.postMessage', (call) => String(call.params.text).includes('Stopped by'));
    await slack.settle();

    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'turn_stopped' },
    ]);
    expect(slack.api.sessionStatus(channel, threadTs)).toBe('closed');
    expect(
      readRows(slack.databasePath, "SELECT actor, kind FROM audit_events WHERE kind = 'turn.stopped'"),
    ).toEqual([{ actor: people.alice, kind: 'turn.stopped' }]);
  });

  it('closes a session with nothing left to stop', async () => {
    const slack = await startSlackHarness({ model: new ScriptedChatModel([reply.text('Answered.')]) });
    const threadTs = await slack.mention('quick question');
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Answered.');
    await slack.settle();

    await slack.sendEvent({
      type: 'agent_session_stopped',
      channel,
      thread_ts: threadTs,
      user: people.alice,
      streaming_message_ts: [],
      event_ts: '1767225999.000200',
    });
    await slack.api.waitFor('agents.sessions.setStatus', (call) => call.params.status === 'closed');
    expect(readRows(slack.databasePath, 'SELECT status FROM turns')).toEqual([{ status: 'completed' }]);
  });
});

describe('Stop', () => {
  it('kills the running command, ends the turn "stopped by", refuses others, and a restart never resumes it', async () => {
    const job = slowJob('holdfast-stop-');
    const model: ChatModel = new ScriptedChatModel([reply.toolCalls(['slow_job', {}])]);
    const slack = await startSlackHarness({ model, tools: [job.tool], live });

    const threadTs = await slack.mention('run the nightly job');
    const start = await slack.api.waitFor('chat.startStream', (call) => stopButtonOf(call) !== undefined);
    const button = stopButtonOf(start) as { value: string };
    const streamTs = String(start.response.ts);
    const jobPid = await job.started();
    expect(alive(jobPid)).toBe(true);

    // Someone who neither asked nor approves is told so, and nothing stops.
    expect((await clickStop(slack, button.value, people.mallory, streamTs, threadTs)).status).toBe(200);
    const refused = await slack.api.waitForResponse((post) => post.name === `stop-${people.mallory}`);
    expect(refused.body.text).toContain('Only the person who asked and the approvers');
    expect(alive(jobPid)).toBe(true);

    expect((await clickStop(slack, button.value, people.alice, streamTs, threadTs)).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => String(call.params.text).includes('Stopped by'));
    await slack.settle();
    await eventually(() => !alive(jobPid), 'the job to be killed');

    // Who stopped it is data on the turn; only the thread's notice turns it into a mention.
    expect(
      readRows(slack.databasePath, 'SELECT status, error_code, error_message, stopped_by FROM turns'),
    ).toEqual([
      {
        status: 'failed',
        error_code: 'turn_stopped',
        error_message: 'Stopped by a person',
        stopped_by: people.alice,
      },
    ]);
    const notice = slack.api.thread(channel, threadTs).find((message) => message.text.includes('Stopped by'));
    expect(notice?.text).toBe(`⏹️ Stopped by <@${people.alice}>.`);
    await slack.api.waitFor('chat.stopStream', (call) => call.params.ts === streamTs);
    // The live message no longer offers a Stop that can do nothing.
    await slack.api.waitFor('chat.update', (call) => call.params.ts === streamTs);
    await slack.settle();
    expect(JSON.stringify(slack.api.message(channel, streamTs)?.blocks)).not.toContain('holdfast.turn.stop');
    expect(
      readRows(slack.databasePath, "SELECT actor, kind FROM audit_events WHERE kind = 'turn.stopped'"),
    ).toEqual([{ actor: people.alice, kind: 'turn.stopped' }]);

    const afterRestart = new ScriptedChatModel([]);
    await slack.restart({ model: afterRestart, tools: [job.tool] });
    await slack.settle();
    expect(afterRestart.calls).toHaveLength(0);
    expect(job.runs).toEqual(['slow_job']);
    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'turn_stopped' },
    ]);
  });

  it('/approvals offers Stop on a running turn to its requester and the approvers only, and it stops the turn', async () => {
    const job = slowJob('holdfast-stop-inbox-');
    const model: ChatModel = new ScriptedChatModel([reply.toolCalls(['slow_job', {}])]);
    const slack = await startSlackHarness({ model, tools: [job.tool], live });

    await slack.mention('run the nightly job');
    const jobPid = await job.started();
    const [turn] = readRows(slack.databasePath, 'SELECT id FROM turns');
    const turnId = String(turn?.id);

    expect(stopButtonsIn(await approvalsReply(slack, people.mallory, 'inbox-mallory'))).toEqual([]);
    expect(stopButtonsIn(await approvalsReply(slack, people.bob, 'inbox-bob'))).toEqual([turnId]);
    const forAlice = await approvalsReply(slack, people.alice, 'inbox-alice');
    expect(stopButtonsIn(forAlice)).toEqual([turnId]);
    expect(JSON.stringify(forAlice.blocks)).toContain('running');

    // A forged click by someone the list did not offer it to changes nothing.
    await clickStopInReply(slack, turnId, people.mallory);
    const refused = await slack.api.waitForResponse((post) => post.name === `inbox-stop-${people.mallory}`);
    expect(refused.body.text).toContain('Only the person who asked and the approvers');
    expect(alive(jobPid)).toBe(true);

    expect((await clickStopInReply(slack, turnId, people.alice)).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => String(call.params.text).includes('Stopped by'));
    await slack.settle();
    await eventually(() => !alive(jobPid), 'the job to be killed');
    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'turn_stopped' },
    ]);
    expect(
      readRows(slack.databasePath, "SELECT actor, kind FROM audit_events WHERE kind = 'turn.stopped'"),
    ).toEqual([{ actor: people.alice, kind: 'turn.stopped' }]);
    // Nothing left to stop.
    expect(stopButtonsIn(await approvalsReply(slack, people.alice, 'inbox-alice-after'))).toEqual([]);
  });

  it('a Stop pressed on another process is carried out by the one running the turn: killed, stream closed, marked failed', async () => {
    const job = slowJob('holdfast-stop-elsewhere-');
    const model: ChatModel = new ScriptedChatModel([reply.toolCalls(['slow_job', {}])]);
    // A short lease: the running process learns of the stop at its next renewal.
    const slack = await startSlackHarness({ model, tools: [job.tool], live, leaseMs: 600 });

    const threadTs = await slack.mention('run the nightly job');
    const start = await slack.api.waitFor('chat.startStream', (call) => stopButtonOf(call) !== undefined);
    const button = stopButtonOf(start) as { value: string };
    const streamTs = String(start.response.ts);
    const jobPid = await job.started();

    // The click reaches a second process, which does not run the turn.
    const other = await slack.startAnother({ model: new ScriptedChatModel([]), tools: [job.tool] });
    const click = (body: Parameters<SlackHarness['post']>[0]) => other.post(body);
    expect((await clickStop(slack, button.value, people.alice, streamTs, threadTs, click)).status).toBe(200);
    await slack.api.waitFor('chat.postMessage', (call) => String(call.params.text).includes('Stopped by'));

    // The first process notices, kills the job, closes its stream and marks the request failed.
    await eventually(() => !alive(jobPid), 'the job to be killed');
    await slack.api.waitFor('chat.stopStream', (call) => call.params.ts === streamTs);
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'x');
    await slack.settle();
    expect(slack.api.message(channel, streamTs)?.streaming).toBe(false);
    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'turn_stopped' },
    ]);
    expect(
      readRows(slack.databasePath, "SELECT actor, kind FROM audit_events WHERE kind = 'turn.stopped'"),
    ).toEqual([{ actor: people.alice, kind: 'turn.stopped' }]);
    expect(job.runs).toEqual(['slow_job']);
  });

  it('stopping a turn that waits on an approval declines the request and rewrites its card', async () => {
    const { tool, runs } = countingShellTool();
    let slack: SlackHarness | undefined;
    // A first look that lasts until the live message is open, as a real turn takes a moment to get here.
    const look = defineTool({
      name: 'read_status',
      description: 'Reads the status of the api.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'read only' }),
      execute: async () => {
        await (slack as SlackHarness).api.waitFor('chat.startStream');
        return 'api is degraded';
      },
    });
    const model = new ScriptedChatModel([
      reply.toolCalls(['read_status', {}]),
      reply.toolCalls(['ops_shell', { command: 'systemctl restart api' }]),
    ]);
    slack = await startSlackHarness({ model, tools: [tool, look as Tool], live });

    const threadTs = await slack.mention('restart the api');
    const card = await slack.api.waitFor('chat.postMessage', (call) =>
      String(call.params.text).includes('restart api'),
    );
    const start = await slack.api.waitFor('chat.startStream', (call) => stopButtonOf(call) !== undefined);
    await slack.settle();
    const [turn] = readRows(slack.databasePath, 'SELECT id, status FROM turns');
    expect(turn?.status).toBe('awaiting_approval');

    // An approver may stop it too.
    await clickStop(slack, String(turn?.id), people.bob, String(start.response.ts), threadTs);
    await slack.api.waitFor('chat.update', (call) => call.params.ts === card.response.ts);
    await slack.settle();

    expect(readRows(slack.databasePath, 'SELECT decision, decided_by FROM approvals')).toEqual([
      { decision: 'denied', decided_by: people.bob },
    ]);
    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'turn_stopped' },
    ]);
    expect(runs).toEqual([]);
  });
});
