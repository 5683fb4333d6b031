import { describe, expect, it, onTestFinished } from 'vitest';
import type { ChatModel, ChatRequest, ModelReply } from '../../../src/agent/chat-model.js';
import { reply } from '../../../src/llm/scripted-chat-model.js';
import { startSlackHarness } from './slack-harness.js';

const turnsAtOnce = 14;

/** A model that answers nobody until `count` turns are all waiting on it at the same time. */
function modelAnsweringTogether(count: number): ChatModel & { waiting: () => number } {
  const waiting: Array<() => void> = [];
  return {
    waiting: () => waiting.length,
    async complete(request: ChatRequest): Promise<ModelReply> {
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === count) for (const release of waiting) release();
      });
      const asked = request.messages.findLast((message) => message.role === 'user');
      return reply.text(`Answered: ${String(asked?.content ?? '').slice(-6)}`);
    },
  };
}

describe('many turns running at once', () => {
  it(`runs ${turnsAtOnce} turns side by side with no listener-leak warning`, async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    onTestFinished(() => {
      process.off('warning', onWarning);
    });
    const model = modelAnsweringTogether(turnsAtOnce);
    const slack = await startSlackHarness({ model, env: { HOLDFAST_MAX_TURNS_PER_USER: '100' } });

    await Promise.all(
      Array.from({ length: turnsAtOnce }, (_, i) =>
        slack.mention(`status please ${String(i).padStart(2, '0')}`),
      ),
    );
    await slack.settle();
    await new Promise((resolve) => setImmediate(resolve));

    const answers = slack.api
      .succeeded('chat.postMessage')
      .filter((call) => String(call.params.text).startsWith('Answered:'));
    expect(answers).toHaveLength(turnsAtOnce);
    expect(warnings.map((warning) => `${warning.name}: ${warning.message}`)).toEqual([]);
  });
});
