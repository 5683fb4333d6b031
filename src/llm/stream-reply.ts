import type { ModelReply, ModelStreamEvent } from '../agent/chat-model.js';

/**
 * Reports a reply that already exists as a model would stream it: the text word by word (spaces kept with
 * the word before them, so the pieces join back to the text), then each call. For the scripted and the
 * demo model, so what watches a turn sees the same shape of events as from a real provider.
 */
export function streamReply(reply: ModelReply, onEvent: (event: ModelStreamEvent) => void): ModelReply {
  for (const delta of reply.content?.match(/\S+\s*|\s+/g) ?? []) onEvent({ type: 'text', delta });
  reply.toolCalls.forEach((call, index) => {
    onEvent({ type: 'tool-call', index, id: call.id, name: call.name });
  });
  return reply;
}
