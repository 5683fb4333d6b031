import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { createLogger } from '../../../src/startup/build-parts.js';
import type { LogEntry } from '../../support/test-logger.js';
import { countingShellTool, people, startSlackHarness, waitForCard } from '../slack/slack-harness.js';

describe('operator log lines', () => {
  it('tell an approval cycle in one line per step, with its ids, through the redactor', async () => {
    const { tool } = countingShellTool();
    const model = new ScriptedChatModel([]);
    const slack = await startSlackHarness({ model, tools: [tool] });
    // A configured secret in the command: every line that repeats the command must hide it.
    const command = `curl -H "X-Signature: ${slack.signingSecret}" https://deploy.internal/restart`;
    model.enqueue(reply.toolCalls(['ops_shell', { command }, 'call_restart']), reply.text('Done.'));
    const threadTs = await slack.mention('please restart the web tier');
    const card = await waitForCard(slack.api, threadTs);
    await slack.click('allow', card, { user: people.bob });
    await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Done.');
    await slack.settle();

    const turnId = (await slack.holdfast.runtime.store.approvals.get(card.requestId))!.turnId;
    const ids = { requestId: card.requestId, turnId, conversationId: expect.stringContaining(threadTs) };
    const line = (msg: string) =>
      slack.log.entries.filter((entry: LogEntry) => entry.msg === msg && entry.level === 30);
    expect(line('approval requested')).toEqual([
      expect.objectContaining({ ...ids, tool: 'ops_shell', requestedBy: people.alice }),
    ]);
    expect(line('approval allowed')).toEqual([
      expect.objectContaining({
        ...ids,
        decision: 'allowed',
        decidedBy: people.bob,
        tool: 'ops_shell',
        waitedMs: expect.any(Number),
      }),
    ]);
    expect(line('tool ran')).toEqual([
      expect.objectContaining({
        ...ids,
        tool: 'ops_shell',
        outcome: 'succeeded',
        durationMs: expect.any(Number),
      }),
    ]);
    expect(line('turn waits for approval')).toEqual([
      expect.objectContaining({ turnId, requestIds: [card.requestId] }),
    ]);
    expect(line('turn completed')).toEqual([expect.objectContaining({ turnId, outcome: 'completed' })]);
    expect(JSON.stringify(slack.log.entries)).not.toContain(slack.signingSecret);
  });
});

describe('HOLDFAST_AUDIT_LOG=1', () => {
  it('mirrors each audit row of an approval cycle to the log, once, with its hash', async () => {
    const { tool } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
      reply.text('Done.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool], env: { HOLDFAST_AUDIT_LOG: '1' } });
    const threadTs = await slack.mention('please restart the web tier');
    const card = await waitForCard(slack.api, threadTs);
    await slack.click('allow', card, { user: people.bob });
    await slack.waitForLog((entry) => entry.msg === 'audit approval.allowed');

    const mirrored = slack.log.entries.filter((entry) => entry.msg.startsWith('audit '));
    const rows = await slack.holdfast.runtime.store.audit.list();
    expect(mirrored.map((entry) => entry.audit)).toEqual(
      rows.map((row) =>
        expect.objectContaining({
          id: row.id,
          kind: row.kind,
          actor: row.actor,
          requestId: card.requestId,
          hash: row.hash,
        }),
      ),
    );
    expect(mirrored.map((entry) => entry.msg)).toEqual([
      'audit approval.requested',
      'audit approval.allowed',
    ]);
  });
});

describe('createLogger', () => {
  const config = (env: Record<string, string>) => loadConfig(env, process.cwd());

  async function firstLine(env: Record<string, string>, isTty: boolean): Promise<string> {
    const destination = new PassThrough();
    const logger = createLogger(config(env), { isTty, destination });
    const written = once(destination, 'data');
    logger.info({ requestId: 'apr_1' }, 'approval requested');
    const [chunk] = (await written) as [Buffer];
    return chunk.toString('utf8');
  }

  it('writes pretty lines for people on a terminal', async () => {
    const text = await firstLine({}, true);
    expect(text).toMatch(/INFO.*approval requested.*requestId.*apr_1/);
    expect(() => JSON.parse(text)).toThrow();
  });

  it('writes JSON when the output is not a terminal, or when HOLDFAST_LOG_FORMAT=json says so', async () => {
    for (const [env, isTty] of [
      [{}, false],
      [{ HOLDFAST_LOG_FORMAT: 'json' }, true],
    ] as const) {
      expect(JSON.parse(await firstLine(env, isTty))).toMatchObject({
        level: 30,
        msg: 'approval requested',
        requestId: 'apr_1',
      });
    }
  });

  it('writes pretty lines off a terminal when HOLDFAST_LOG_FORMAT=pretty says so', async () => {
    expect(await firstLine({ HOLDFAST_LOG_FORMAT: 'pretty' }, false)).toMatch(
      /^\[[\d:.]+\] INFO: approval requested/,
    );
  });
});
