import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/agent/tool.js';
import { reply, ScriptedChatModel } from '../../../src/llm/index.js';
import { createDelegateTool } from '../../../src/tools/delegate.js';
import { loadPlugins } from '../../../src/tools/index.js';
import { createRunShellTool } from '../../../src/tools/run-shell.js';
import { transcriptOf } from '../../support/store-reads.js';
import { tempDir } from '../../support/temp-dir.js';
import { startCoreHarness, threadId, toolResults } from '../core/core-harness.js';

const projectRoot = path.resolve(import.meta.dirname, '..', '..', '..');
const incidentsPlugin = path.join(projectRoot, 'examples', 'plugins', 'incidents.ts');

async function incidentTool(): Promise<Tool> {
  const [tool] = await loadPlugins([incidentsPlugin]);
  if (!tool) throw new Error('the example plugin exports no tool');
  return tool;
}

describe('plugin state across an approval and a restart', () => {
  it('keeps ctx.kv with the approval and gives it back to the resumed call', async () => {
    const tool = await incidentTool();
    const harness = startCoreHarness({
      model: new ScriptedChatModel([
        reply.toolCalls(['open_incident', { title: 'API latency', severity: 'sev2' }]),
      ]),
      tools: [tool],
    });
    await harness.submit('1700000000.000100', 'open an incident for the API latency');
    const suspended = await harness.nextOutcome();
    expect(suspended.type).toBe('awaiting-approval');
    if (suspended.type !== 'awaiting-approval') return;
    expect(suspended.approval.summary).toBe('open INC-1 (sev2): API latency');

    const afterRestart = new ScriptedChatModel([reply.text('INC-1 is open.')]);
    await harness.reopen({ model: afterRestart, tools: [await incidentTool()] });
    await harness.decide(suspended.approval.requestId, 'allow');
    const completed = await harness.nextOutcome();
    expect(completed.type).toBe('completed');
    const results = toolResults(await harness.messages('1700000000.000100'));
    expect(results.get('call_1')).toBe(
      'Opened INC-1 (sev2): API latency. Incidents opened in this thread: INC-1.',
    );
    expect(afterRestart.calls).toHaveLength(1);

    // The next incident in the same thread continues the numbering from the restored state.
    afterRestart.enqueue(
      reply.toolCalls(['open_incident', { title: 'Disk full', severity: 'sev3' }, 'call_9']),
    );
    await harness.submit('1700000000.000100', 'and one for the disk', { ts: '1700000000.000200' });
    const second = await harness.nextOutcome();
    expect(second.type).toBe('awaiting-approval');
    if (second.type !== 'awaiting-approval') return;
    expect(second.approval.summary).toBe('open INC-2 (sev3): Disk full');
  });
});

describe('delegate', () => {
  it('suspends the whole turn inside the nested agent and resumes it after a restart', async () => {
    const workdir = tempDir().path;
    const restartCommand = 'echo restarted >> restarts.log && echo web restarted';
    // Every restart builds the tools afresh, as a new process would.
    const buildTools = async () => {
      const shell = createRunShellTool({
        workdir,
        env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
        timeoutMs: 10_000,
      }) as Tool;
      const nestedTools = [shell, await incidentTool()];
      return [createDelegateTool(() => nestedTools) as Tool];
    };
    const before = new ScriptedChatModel([
      reply.toolCalls([
        'delegate',
        { task: 'open an incident, then restart web', agent: 'responder' },
        'outer_1',
      ]),
      reply.toolCalls(['open_incident', { title: 'Web down', severity: 'sev1' }, 'inner_1']),
    ]);
    const harness = startCoreHarness({ model: before, tools: await buildTools() });
    await harness.submit('1700000000.000300', 'handle the web outage');
    const first = await harness.nextOutcome();
    expect(first.type).toBe('awaiting-approval');
    if (first.type !== 'awaiting-approval') return;
    expect(first.approval.toolName).toBe('open_incident');
    expect(first.approval.transcriptId).toBe(`${threadId('1700000000.000300')}>outer_1`);
    expect(before.calls).toHaveLength(2);
    // The nested agent saw its own instructions and task, not the outer conversation.
    expect(before.calls[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: 'open an incident, then restart web',
    });

    const after = new ScriptedChatModel([
      reply.toolCalls(['run_shell', { command: restartCommand }, 'inner_2']),
    ]);
    await harness.reopen({ model: after, tools: await buildTools() });
    await harness.decide(first.approval.requestId, 'allow');
    const second = await harness.nextOutcome();
    expect(second.type).toBe('awaiting-approval');
    if (second.type !== 'awaiting-approval') return;
    expect(second.approval.toolName).toBe('run_shell');
    expect(second.approval.summary).toBe(`run \`${restartCommand}\``);
    expect(fs.existsSync(path.join(workdir, 'restarts.log'))).toBe(false);

    after.enqueue(
      reply.text('Incident INC-1 opened and web restarted.'),
      reply.text('Handled: INC-1, web restarted.'),
    );
    await harness.reopen({ model: after, tools: await buildTools() });
    await harness.decide(second.approval.requestId, 'allow');
    const done = await harness.nextOutcome();
    expect(done.type).toBe('completed');
    if (done.type !== 'completed') return;
    expect(done.answer).toBe('Handled: INC-1, web restarted.');
    expect(fs.readFileSync(path.join(workdir, 'restarts.log'), 'utf8')).toBe('restarted\n');

    const nested = toolResults(await transcriptOf(harness.store, `${threadId('1700000000.000300')}>outer_1`));
    // The nested agent's kv came back after each restart: the incident kept the number its card showed.
    expect(nested.get('inner_1')).toBe(
      'Opened INC-1 (sev1): Web down. Incidents opened in this thread: INC-1.',
    );
    expect(nested.get('inner_2')).toBe('web restarted\n[exit code 0]');
    const outer = toolResults(await harness.messages('1700000000.000300'));
    expect(outer.get('outer_1')).toBe('Incident INC-1 opened and web restarted.');
    // The model was asked once per step: never again to regenerate a call it had already made.
    expect(after.calls).toHaveLength(3);
  });
});
