import type { ChatModel } from '../agent/chat-model.js';
import type { OpsMetrics } from './ops-metrics.js';
import { withOverrides } from './with-overrides.js';

/**
 * The model, timed and its reported tokens counted; requests and replies pass through untouched, and any
 * other member of the model (a streaming variant) is the model's own.
 */
export function observedModel(model: ChatModel, deps: { metrics: OpsMetrics; now: () => number }): ChatModel {
  const { metrics, now } = deps;
  return withOverrides(model, {
    async complete(request) {
      const started = now();
      try {
        const reply = await model.complete(request);
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
    },
  });
}
