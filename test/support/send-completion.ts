import type { ServerResponse } from 'node:http';
import { sendJson } from '../../src/local/http-io.js';

interface Completion {
  readonly choices: ReadonlyArray<{
    readonly message: {
      readonly content?: string | null;
      readonly tool_calls?: readonly unknown[];
      readonly [key: string]: unknown;
    };
    readonly finish_reason: string;
    readonly [key: string]: unknown;
  }>;
  readonly usage?: unknown;
  readonly [key: string]: unknown;
}

/**
 * Answers a chat completions request the way the provider does: the completion as JSON, or, when the
 * request asked for `stream: true`, the same completion as server-sent chunks (the text in two pieces,
 * each call in its own chunk, then a usage-only chunk and `[DONE]`).
 */
export function sendCompletion(response: ServerResponse, requestBody: unknown, completion: Completion): void {
  const streamed =
    typeof requestBody === 'object' && requestBody !== null && 'stream' in requestBody && requestBody.stream;
  if (!streamed) {
    sendJson(response, 200, completion);
    return;
  }
  const { choices, usage, ...rest } = completion;
  const choice = choices[0];
  const chunk = (delta: object, finishReason: string | null = null) => ({
    ...rest,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: '' })];
  const content = choice?.message.content ?? '';
  const middle = Math.ceil(content.length / 2);
  if (content)
    chunks.push(chunk({ content: content.slice(0, middle) }), chunk({ content: content.slice(middle) }));
  (choice?.message.tool_calls ?? []).forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, ...(call as object) }] }));
  });
  chunks.push(chunk({}, choice?.finish_reason ?? 'stop'));
  chunks.push({ ...rest, object: 'chat.completion.chunk', choices: [], usage });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.end(`${chunks.map((value) => `data: ${JSON.stringify(value)}\n\n`).join('')}data: [DONE]\n\n`);
}
