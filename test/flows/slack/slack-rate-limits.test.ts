import { describe, expect, it } from 'vitest';
import { reply, ScriptedChatModel } from '../../../src/llm/scripted-chat-model.js';
import type { FakeSlackApi } from '../../support/fake-slack-api.js';
import { channel, countingShellTool, startSlackHarness, waitForCard } from './slack-harness.js';
import { denyReasonCallbackId } from './slack-modals.js';

/** A request that will wait for approval (a bell on it), with Slack's answers scripted before it is made. */
async function pendingRequestWith(script: (api: FakeSlackApi) => void) {
  const { tool } = countingShellTool();
  const model = new ScriptedChatModel([
    reply.toolCalls(['ops_shell', { command: 'systemctl restart web' }, 'call_restart']),
    reply.text('Done.'),
  ]);
  const slack = await startSlackHarness({ model, tools: [tool] });
  script(slack.api);
  return { slack, threadTs: await slack.mention('please restart the web tier') };
}

describe('a rate limit on one Web API method', () => {
  it('holds back that method only: a Deny click still opens its form within the trigger’s three seconds', async () => {
    const { slack, threadTs } = await pendingRequestWith((api) =>
      api.failNext('reactions.add', { type: 'rate-limited', retryAfterSeconds: 30 }),
    );
    const card = await waitForCard(slack.api, threadTs);
    await slack.api.waitFor('reactions.add', (call) => call.status === 429);

    await slack.click('deny', card);
    const opened = await slack.api.waitFor(
      'views.open',
      (call) => (call.params.view as { callback_id?: string }).callback_id === denyReasonCallbackId,
      2_500,
    );

    expect(opened.response.ok).toBe(true);
    // The limited method itself waits its turn: nothing more was sent to it meanwhile.
    expect(slack.api.callsTo('reactions.add').map((call) => call.status)).toEqual([429]);
  });

  it('sends a final reaction once Retry-After has passed, once', async () => {
    const { slack, threadTs } = await pendingRequestWith((api) =>
      api.failMatching('reactions.add', (params) => params.name === 'white_check_mark', {
        type: 'rate-limited',
        retryAfterSeconds: 1,
      }),
    );
    const card = await waitForCard(slack.api, threadTs);
    await slack.click('allow', card);

    const tick = (call: { params: Record<string, unknown> }) => call.params.name === 'white_check_mark';
    await slack.api.waitFor('reactions.add', (call) => tick(call) && call.status === 429);
    const limitedAt = Date.now();
    const added = await slack.api.waitFor(
      'reactions.add',
      (call) => tick(call) && call.status === 200,
      10_000,
    );
    const waited = Date.now() - limitedAt;
    await slack.settle();

    expect(added.params).toMatchObject({ channel, timestamp: threadTs });
    expect(
      slack.api
        .callsTo('reactions.add')
        .filter(tick)
        .map((call) => call.status),
    ).toEqual([429, 200]);
    // Seen a little after the 429 arrived, so a little under the second Slack asked for.
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(slack.api.reactions(channel, threadTs)).toEqual(['white_check_mark']);
  });

  it('drops a bell Slack has no room for rather than retrying it into the limit', async () => {
    const { slack, threadTs } = await pendingRequestWith((api) =>
      api.failNext('reactions.add', { type: 'rate-limited', retryAfterSeconds: 1 }),
    );
    const card = await waitForCard(slack.api, threadTs);
    await slack.api.waitFor('reactions.add', (call) => call.status === 429);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await slack.settle();

    // Only nice to have: never sent again, and the request still waits with its card.
    expect(slack.api.callsTo('reactions.add').map((call) => call.status)).toEqual([429]);
    await slack.click('allow', card);
    await slack.api.waitFor('reactions.add', (call) => call.params.name === 'white_check_mark');
    await slack.settle();
    expect(slack.api.reactions(channel, threadTs)).toEqual(['white_check_mark']);
    // No bell was shown, so none is taken off.
    expect(slack.api.callsTo('reactions.remove')).toEqual([]);
  });
});
