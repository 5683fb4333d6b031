import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestClock } from '../../support/test-clock.js';
import {
  channel,
  countingShellTool,
  type SlackHarness,
  startSlackHarness,
  waitForCard,
} from './slack-harness.js';
import { denyWithReason } from './slack-modals.js';

async function restartRequest(options: { env?: Record<string, string>; now?: () => number } = {}) {
  const { tool, runs } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
    reply.text('Answered.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool], ...options });
  const threadTs = await slack.mention('please restart the web tier');
  const card = await waitForCard(slack.api, threadTs);
  await slack.settle();
  return { slack, runs, threadTs, card };
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

async function answered(slack: SlackHarness): Promise<void> {
  await slack.api.waitFor('chat.postMessage', (call) => call.params.text === 'Answered.');
  await slack.settle();
}

describe('the status on the message that asked', () => {
  it('waits with a bell, and shows a tick once the allowed call ran', async () => {
    const { slack, threadTs, card } = await restartRequest();
    expect(reactionsOn(slack, threadTs).added).toEqual(['bell']);

    await slack.click('allow', card);
    await answered(slack);

    expect(reactionsOn(slack, threadTs)).toEqual({ added: ['bell', 'white_check_mark'], removed: ['bell'] });
  });

  it('shows a denial as denied, never as done', async () => {
    const { slack, threadTs, card, runs } = await restartRequest();

    await denyWithReason(slack, card);
    await answered(slack);

    expect(runs).toEqual([]);
    expect(reactionsOn(slack, threadTs)).toEqual({ added: ['bell', 'no_entry'], removed: ['bell'] });
  });

  it('shows a call a deny rule refused as denied, never as done', async () => {
    const policyPath = tempDir('holdfast-policy-').file('policy.yml');
    writeFileSync(
      policyPath,
      'rules:\n  - tool: ops_shell\n    action: deny\n    reason: no shell from chat\n',
    );
    const { tool, runs } = countingShellTool();
    const model = new ScriptedChatModel([
      reply.toolCalls(['ops_shell', { command: 'uptime' }, 'call_uptime']),
      reply.text('Answered.'),
    ]);
    const slack = await startSlackHarness({ model, tools: [tool], env: { HOLDFAST_POLICY: policyPath } });

    const threadTs = await slack.mention('how long has the host been up?');
    await answered(slack);

    expect(runs).toEqual([]);
    expect(reactionsOn(slack, threadTs).added).toEqual(['no_entry']);
  });

  it('shows a request nobody decided as expired, and its card says nobody decided', async () => {
    const clock = createTestClock(Date.now());
    const { slack, threadTs, card, runs } = await restartRequest({
      env: { HOLDFAST_APPROVAL_TTL: '1h' },
      now: clock.now,
    });

    clock.advance(2 * 60 * 60_000);
    await slack.holdfast.runtime.recover();
    await answered(slack);

    expect(runs).toEqual([]);
    expect(reactionsOn(slack, threadTs)).toEqual({ added: ['bell', 'hourglass'], removed: ['bell'] });
    const update = await slack.api.waitFor('chat.update', (call) => call.params.ts === card.ts);
    expect(String(update.params.text)).toContain('nobody decided');
    expect(JSON.stringify(update.params.blocks)).not.toMatch(/denied/i);
  });

  it('shows a turn that failed as failed, never as done', async () => {
    const model = new ScriptedChatModel([new Error('the model is down')]);
    const slack = await startSlackHarness({ model });

    const threadTs = await slack.mention('how full is the disk?');
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'x');
    await slack.settle();

    expect(reactionsOn(slack, threadTs).added).toEqual(['x']);
  });
});
