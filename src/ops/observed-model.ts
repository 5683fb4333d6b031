import type { ChatModel, ModelReply } from '../agent/chat-model.js';
import type { OpsMetrics } from './ops-metrics.js';
import { withOverrides } from './with-overrides.js';

/**
 * The model, timed and its reported tokens counted, whether a turn asks for the whole reply or streams
 * it; requests and replies pass through untouched.
 */
export function observedModel(model: ChatModel, deps: { metrics: OpsMetrics; now: () => number }): ChatModel {
  const { metrics, now } = deps;
  const timed = async (call: () => Promise<ModelReply>): Promise<ModelReply> => {
    const started = now();
    try {
      const reply = await call();
      metrics.modelRequests.inc({ outcome: 'ok' });
      metrics.modelSeconds.observe({ outcome: 'ok' }, (now() - started) / 1_000);
      if (reply.usage) {
        metrics.modelTokens.inc({ type: 'prompt' }, reply.usage.promptTokens);
        metrics.modelTokens.inc({ type: 'completion' }, reply.usage.completionTokens);
      }
      return reply;
    } catch (error) {
      metrics.modelRequests.inc({ outcome: 'error' });
      metrics.modelSeconds.observe({ outcome: 'error' }, (now() - started) / 1_000);
      throw error;
    }
  };
  const stream = model.stream?.bind(model);
  return withOverrides(model, {
    complete: (request) => timed(() => model.complete(request)),
    ...(stream ? { stream: (request, onEvent) => timed(() => stream(request, onEvent)) } : {}),
  } satisfies Partial<ChatModel>);
}
