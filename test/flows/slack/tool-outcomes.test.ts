import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
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
  waitForCard,
} from './slack-harness.js';
import { alive, slowJob } from './slow-job.js';
import { clickStop, stopButtonOf } from './stop-clicks.js';

/** Streams shown at once and appended to as often as there is something new. */
const live = { showAfterMs: 0, streamIntervalMs: 0, updateIntervalMs: 0 };

/** A policy that lets run_shell through without asking, so the command runs in the turn. */
function shellAllowed(): string {
  const path = tempDir('holdfast-policy-').file('policy.yml');
  writeFileSync(path, 'rules:\n  - tool: run_shell\n    action: allow\n');
  return path;
}

function chunksOf(call: SlackApiCall): Array<Record<string, unknown>> {
  return Array.isArray(call.params.chunks) ? (call.params.chunks as Array<Record<string, unknown>>) : [];
}

/** Every task_update chunk the live message sent, in order. */
function taskUpdates(slack: SlackHarness): Array<Record<string, unknown>> {
  return slack.api.calls
    .filter((call) => /^chat\.(startStream|appendStream|stopStream)$/.test(call.method))
    .flatMap(chunksOf)
    .filter((chunk) => chunk.type === 'task_update');
}

/** The reactions on the request message, in the order they were added and removed. */
function reactionsOn(slack: SlackHarness, ts: string) {
  const on = (method: string) =>
    slack.api
      .succeeded(method)
      .filter((call) => call.params.channel === channel && call.params.timestamp === ts)
      .map((call) => String(call.params.name));
  return { added: on('reactions.add'), removed: on('reactions.remove') };
}

async function answered(slack: SlackHarness, text: string): Promise<void> {
  await slack.api.waitFor('chat.postMessage', (call) => String(call.params.text).includes(text));
  await slack.settle();
}

describe('a command that fails', () => {
  it('shows a failed task named for its command, a reaction that is not a tick, and a log line that says so', async () => {
    let harness: SlackHarness | undefined;
    const failedTask = (chunk: Record<string, unknown>) =>
      chunk.id === 'call_check' && chunk.status === 'error';
    const model = new ScriptedChatModel([
      reply.toolCalls(['run_shell', { command: 'echo checking; exit 2' }, 'call_check']),
      // The answer waits until the task shows how the call ended: the answer would replace it otherwise.
      async () => {
        const slack = harness as SlackHarness;
        await eventually(() => taskUpdates(slack).some(failedTask), 'the failed task to show');
        return reply.text('The check failed with exit code 2.');
      },
    ]);
    const slack = await startSlackHarness({ model, env: { HOLDFAST_POLICY: shellAllowed() }, live });
    harness = slack;

    const threadTs = await slack.mention('run the disk check');
    await slack.api.waitFor('chat.update', (call) => String(call.params.text).includes('exit code 2'));
    await slack.settle();

    const updates = taskUpdates(slack).filter((chunk) => chunk.id === 'call_check');
    expect(updates.at(-1)).toMatchObject({
      status: 'error',
      title: 'run_shell: echo checking; exit 2',
      details: expect.stringContaining('exit code 2'),
    });
    expect(updates.map((chunk) => chunk.status)).not.toContain('complete');
    expect(slack.api.thread(channel, threadTs)[0]?.tasks).toEqual({
      call_check: { title: 'run_shell: echo checking; exit 2', status: 'error' },
    });

    const { added } = reactionsOn(slack, threadTs);
    expect(added).toContain('exclamation');
    expect(added).not.toContain('white_check_mark');

    expect(slack.log.entries.filter((entry) => entry.msg === 'tool ran')).toEqual([
      expect.objectContaining({
        tool: 'run_shell',
        outcome: 'failed',
        exitCode: 2,
        toolCallId: 'call_check',
      }),
    ]);
    expect(
      readRows(slack.databasePath, "SELECT tool_calls_json AS kept FROM messages WHERE role = 'tool'"),
    ).toEqual([{ kept: JSON.stringify({ outcome: { type: 'failed', exitCode: 2 } }) }]);
  });

  it('keeps the failure with its result: the turn that finishes after a restart still does not read as done', async () => {
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(
        ['run_shell', { command: 'exit 2' }, 'call_check'],
        ['ops_shell', { command: 'systemctl restart web' }, 'call_restart'],
      ),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool], env: { HOLDFAST_POLICY: shellAllowed() } });
    const threadTs = await slack.mention('check the disk, then restart the web tier');
    const card = await waitForCard(slack.api, threadTs);
    await slack.settle();

    // A new process on the same file: only the stored outcome knows the first call failed.
    await slack.restart({ model: new ScriptedChatModel([reply.text('Answered.')]), tools: [tool] });
    await slack.click('allow', card);
    await answered(slack, 'Answered.');

    expect(runs).toEqual(['systemctl restart web']);
    expect(reactionsOn(slack, threadTs)).toEqual({ added: ['bell', 'exclamation'], removed: ['bell'] });
  });

  it('reads as done when every call succeeded', async () => {
    const model = new ScriptedChatModel([
      reply.toolCalls(['run_shell', { command: 'echo fine' }, 'call_check']),
      reply.text('All fine.'),
    ]);
    const slack = await startSlackHarness({ model, env: { HOLDFAST_POLICY: shellAllowed() } });

    const threadTs = await slack.mention('run the disk check');
    await answered(slack, 'All fine.');

    expect(reactionsOn(slack, threadTs).added).toEqual(['white_check_mark']);
    expect(slack.log.entries.filter((entry) => entry.msg === 'tool ran')).toEqual([
      expect.objectContaining({ tool: 'run_shell', outcome: 'succeeded' }),
    ]);
  });
});

describe('a call that is not run', () => {
  it('shows its task as not run rather than leaving it pending', async () => {
    const policy = tempDir('holdfast-policy-').file('policy.yml');
    writeFileSync(policy, 'rules:\n  - tool: run_shell\n    action: deny\n    reason: no shell from chat\n');
    let harness: SlackHarness | undefined;
    const refusedTask = (chunk: Record<string, unknown>) =>
      chunk.id === 'call_rm' && chunk.status === 'error';
    const model = new ScriptedChatModel([
      reply.toolCalls(['run_shell', { command: 'rm -rf /var/cache' }, 'call_rm']),
      // The answer waits until the task shows how the call ended: the answer would replace it otherwise.
      async () => {
        const slack = harness as SlackHarness;
        await eventually(() => taskUpdates(slack).some(refusedTask), 'the refused task to show');
        return reply.text('That was refused by policy.');
      },
    ]);
    const slack = await startSlackHarness({ model, env: { HOLDFAST_POLICY: policy }, live });
    harness = slack;

    const threadTs = await slack.mention('clear the cache');
    await slack.api.waitFor('chat.update', (call) => String(call.params.text).includes('refused by policy'));
    await slack.settle();

    expect(
      taskUpdates(slack)
        .filter((chunk) => chunk.id === 'call_rm')
        .at(-1),
    ).toMatchObject({
      status: 'error',
      title: 'run_shell: rm -rf /var/cache',
      details: 'not run',
    });
    expect(reactionsOn(slack, threadTs).added).toEqual(['no_entry']);
  });
});

describe('a command killed by Stop', () => {
  it('shows its task as stopped, not done, and logs it as stopped', async () => {
    const job = slowJob('holdfast-stopped-');
    const slack = await startSlackHarness({
      model: new ScriptedChatModel([reply.toolCalls(['slow_job', {}, 'call_job'])]),
      tools: [job.tool],
      live,
    });
    const threadTs = await slack.mention('run the nightly job');
    const start = await slack.api.waitFor('chat.startStream', (call) => stopButtonOf(call) !== undefined);
    const jobPid = await job.started();

    const button = stopButtonOf(start) as { value: string };
    await clickStop(slack, button.value, people.alice, String(start.response.ts), threadTs);
    await eventually(() => !alive(jobPid), 'the job to be killed');
    await slack.api.waitFor('chat.stopStream', (call) => call.params.ts === start.response.ts);
    await slack.settle();

    const updates = taskUpdates(slack).filter((chunk) => chunk.id === 'call_job');
    expect(updates.at(-1)).toMatchObject({ status: 'error', details: expect.stringContaining('stopped') });
    expect(updates.map((chunk) => chunk.status)).not.toContain('complete');
    expect(slack.log.entries.filter((entry) => entry.msg === 'tool ran')).toEqual([
      expect.objectContaining({ tool: 'slow_job', outcome: 'stopped' }),
    ]);
    expect(reactionsOn(slack, threadTs).added).not.toContain('white_check_mark');
  });
});
