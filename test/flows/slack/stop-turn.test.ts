import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChatModel } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { runProcess } from '../../../src/tools/run-process.js';
import type { SlackApiCall } from '../../support/fake-slack-api.js';
import { tempDir } from '../../support/temp-dir.js';
import {
  channel,
  countingShellTool,
  eventually,
  people,
  readRows,
  type SlackHarness,
  startSlackHarness,
} from './slack-harness.js';

const live = { showAfterMs: 0, streamIntervalMs: 0, updateIntervalMs: 0 };

/** The Stop button the live message carries (in its stream's blocks chunk). */
function stopButtonOf(call: SlackApiCall): { value: string } | undefined {
  const chunks = Array.isArray(call.params.chunks)
    ? (call.params.chunks as Array<Record<string, unknown>>)
    : [];
  for (const chunk of chunks) {
    if (chunk.type !== 'blocks') continue;
    for (const block of chunk.blocks as Array<{ elements?: Array<Record<string, unknown>> }>) {
      const button = block.elements?.find((element) => element.action_id === 'holdfast.turn.stop');
      if (button) return { value: String(button.value) };
    }
  }
  return undefined;
}

/** A signed click on the Stop button, the way Slack sends it. */
function clickStop(
  slack: SlackHarness,
  turnId: string,
  user: string,
  streamTs: string,
  threadTs: string,
  post: SlackHarness['post'] = slack.post,
) {
  return post({
    payload: {
      type: 'block_actions',
      team: { id: slack.api.identity.teamId, domain: 'holdfast-test' },
      user: { id: user, username: user.toLowerCase(), team_id: slack.api.identity.teamId },
      api_app_id: 'A0HOLDFAST',
      token: 'legacy-verification-token',
      trigger_id: '1.1.stop',
      container: { type: 'message', message_ts: streamTs, channel_id: channel, thread_ts: threadTs },
      channel: { id: channel, name: 'ops' },
      message: { type: 'message', ts: streamTs, thread_ts: threadTs, text: '' },
      response_url: slack.api.responseUrl(`stop-${user}`),
      actions: [
        {
          type: 'button',
          action_id: 'holdfast.turn.stop',
          block_id: 'holdfast.turn',
          value: turnId,
          action_ts: '1.2',
        },
      ],
    },
  });
}

/** The Stop buttons of an ephemeral reply, by the turn they stop. */
function stopButtonsIn(body: Record<string, unknown>): string[] {
  const blocks = Array.isArray(body.blocks) ? (body.blocks as Array<Record<string, unknown>>) : [];
  return blocks.flatMap((block) => {
    const accessory = block.accessory as { action_id?: string; value?: string } | undefined;
    return accessory?.action_id === 'holdfast.turn.stop' ? [String(accessory.value)] : [];
  });
}

/** A Stop click from the ephemeral `/approvals` reply: Slack sends no message with it. */
function clickStopInReply(slack: SlackHarness, turnId: string, user: string) {
  return slack.post({
    payload: {
      type: 'block_actions',
      team: { id: slack.api.identity.teamId, domain: 'holdfast-test' },
      user: { id: user, username: user.toLowerCase(), team_id: slack.api.identity.teamId },
      api_app_id: 'A0HOLDFAST',
      token: 'legacy-verification-token',
      trigger_id: '1.1.stop',
      container: {
        type: 'message',
        message_ts: '1700000000.000900',
        channel_id: channel,
        is_ephemeral: true,
      },
      channel: { id: channel, name: 'ops' },
      response_url: slack.api.responseUrl(`inbox-stop-${user}`),
      actions: [
        {
          type: 'button',
          action_id: 'holdfast.turn.stop',
          block_id: 'stop',
          value: turnId,
          action_ts: '1.2',
        },
      ],
    },
  });
}

async function approvalsReply(slack: SlackHarness, user: string, name: string) {
  expect((await slack.command('', { user, responseName: name })).status).toBe(200);
  return (await slack.api.waitForResponse((post) => post.name === name)).body as Record<string, unknown>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('Stop', () => {
  it('kills the running command, ends the turn "stopped by", refuses others, and a restart never resumes it', async () => {
    const dir = tempDir('holdfast-stop-');
    const pidFile = path.join(dir.path, 'job.pid');
    const runs: string[] = [];
    const slowJob = defineTool({
      name: 'slow_job',
      description: 'Runs the nightly job.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'test' }),
      async execute(_args, context) {
        runs.push('slow_job');
        // The job's own child, in the background: Stop must kill the whole group, not just the shell.
        const outcome = await runProcess({
          command: `sleep 30 & echo $! > '${pidFile}'; wait`,
          cwd: dir.path,
          env: { PATH: process.env.PATH ?? '' },
          timeoutMs: 60_000,
          outputLimit: 10_000,
          signal: context.signal,
        });
        return outcome.aborted ? 'aborted' : 'finished';
      },
    });
    const model: ChatModel = new ScriptedChatModel([reply.toolCalls(['slow_job', {}])]);
    const slack = await startSlackHarness({ model, tools: [slowJob as Tool], live });

    const threadTs = await slack.mention('run the nightly job');
    const start = await slack.api.waitFor('chat.startStream', (call) => stopButtonOf(call) !== undefined);
    const button = stopButtonOf(start) as { value: string };
    const streamTs = String(start.response.ts);
    await eventually(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
      'the job to start',
    );
    const jobPid = Number(readFileSync(pidFile, 'utf8').trim());
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

    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'turn_stopped' },
    ]);
    const notice = slack.api.thread(channel, threadTs).find((message) => message.text.includes('Stopped by'));
    expect(notice?.text).toBe(`⏹️ Stopped by <@${people.alice}>.`);
    await slack.api.waitFor('chat.stopStream', (call) => call.params.ts === streamTs);
    expect(
      readRows(slack.databasePath, "SELECT actor, kind FROM audit_events WHERE kind = 'turn.stopped'"),
    ).toEqual([{ actor: people.alice, kind: 'turn.stopped' }]);

    const afterRestart = new ScriptedChatModel([]);
    await slack.restart({ model: afterRestart, tools: [slowJob as Tool] });
    await slack.settle();
    expect(afterRestart.calls).toHaveLength(0);
    expect(runs).toEqual(['slow_job']);
    expect(readRows(slack.databasePath, 'SELECT status, error_code FROM turns')).toEqual([
      { status: 'failed', error_code: 'turn_stopped' },
    ]);
  });

  it('/approvals offers Stop on a running turn to its requester and the approvers only, and it stops the turn', async () => {
    const dir = tempDir('holdfast-stop-inbox-');
    const pidFile = path.join(dir.path, 'job.pid');
    const slowJob = defineTool({
      name: 'slow_job',
      description: 'Runs the nightly job.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'test' }),
      async execute(_args, context) {
        const outcome = await runProcess({
          command: `sleep 30 & echo $! > '${pidFile}'; wait`,
          cwd: dir.path,
          env: { PATH: process.env.PATH ?? '' },
          timeoutMs: 60_000,
          outputLimit: 10_000,
          signal: context.signal,
        });
        return outcome.aborted ? 'aborted' : 'finished';
      },
    });
    const model: ChatModel = new ScriptedChatModel([reply.toolCalls(['slow_job', {}])]);
    const slack = await startSlackHarness({ model, tools: [slowJob as Tool], live });

    await slack.mention('run the nightly job');
    await eventually(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
      'the job to start',
    );
    const jobPid = Number(readFileSync(pidFile, 'utf8').trim());
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
    const dir = tempDir('holdfast-stop-elsewhere-');
    const pidFile = path.join(dir.path, 'job.pid');
    const runs: string[] = [];
    const slowJob = defineTool({
      name: 'slow_job',
      description: 'Runs the nightly job.',
      parameters: z.object({}),
      permission: () => ({ type: 'allow', reason: 'test' }),
      async execute(_args, context) {
        runs.push('slow_job');
        const outcome = await runProcess({
          command: `sleep 30 & echo $! > '${pidFile}'; wait`,
          cwd: dir.path,
          env: { PATH: process.env.PATH ?? '' },
          timeoutMs: 60_000,
          outputLimit: 10_000,
          signal: context.signal,
        });
        return outcome.aborted ? 'aborted' : 'finished';
      },
    });
    const model: ChatModel = new ScriptedChatModel([reply.toolCalls(['slow_job', {}])]);
    // A short lease: the running process learns of the stop at its next renewal.
    const slack = await startSlackHarness({ model, tools: [slowJob as Tool], live, leaseMs: 600 });

    const threadTs = await slack.mention('run the nightly job');
    const start = await slack.api.waitFor('chat.startStream', (call) => stopButtonOf(call) !== undefined);
    const button = stopButtonOf(start) as { value: string };
    const streamTs = String(start.response.ts);
    await eventually(
      () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
      'the job to start',
    );
    const jobPid = Number(readFileSync(pidFile, 'utf8').trim());

    // The click reaches a second process, which does not run the turn.
    const other = await slack.startAnother({ model: new ScriptedChatModel([]), tools: [slowJob as Tool] });
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
    expect(runs).toEqual(['slow_job']);
  });

  it('stopping a turn that waits on an approval declines the request and rewrites its card', async () => {
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart api' }]),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool], live });

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
