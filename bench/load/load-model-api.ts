import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { readBody, sendJson } from '../../src/local/http-io.js';
import { sendCompletion } from '../../test/support/send-completion.js';

/**
 * An OpenAI-compatible chat completions server for the load benchmark. Each reply waits as long as
 * `latencyMs` says for its mention, then follows the script the mention's text asks for: a mention marked for approval gets a call to the
 * plugin tool that asks, every other request (and the one after the tool's result) gets the answer,
 * which names the mention so the fake Slack can tell answers apart.
 */
export interface LoadModelApi {
  /** For `OPENAI_BASE_URL`. */
  readonly baseUrl: string;
  readonly requests: () => number;
  close(): Promise<void>;
}

export interface LoadModelApiOptions {
  /** How long the reply for `marker` takes (`afterTool`: the one after the tool's result). */
  readonly latencyMs: (marker: string | undefined, afterTool: boolean) => number;
  /** The model returned its call to the tool, or its final answer, for `marker` (now). */
  readonly onReply: (marker: string, reply: 'toolCall' | 'modelAnswer') => void;
  /** The tool a marked mention calls; it needs approval. */
  readonly toolName: string;
  /** The mention's marker in the latest user message, and whether it asks for the tool. */
  readonly parseMention: (text: string) => { marker: string; approval: boolean } | undefined;
  readonly answerFor: (marker: string) => string;
}

const requestSchema = z.object({
  model: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.unknown() })),
});

export async function startLoadModelApi(options: LoadModelApiOptions): Promise<LoadModelApi> {
  let requests = 0;
  const server = createServer((request, response) => {
    void (async () => {
      const raw = await readBody(request);
      const parsed = requestSchema.safeParse(JSON.parse(raw));
      const lastUser = parsed.data?.messages.findLast((message) => message.role === 'user');
      const mention = options.parseMention(typeof lastUser?.content === 'string' ? lastUser.content : '');
      const toolRan = parsed.data?.messages.at(-1)?.role === 'tool';
      await sleep(options.latencyMs(mention?.marker, toolRan));
      requests += 1;
      if (!parsed.success || !request.url?.endsWith('/chat/completions')) {
        sendJson(response, 400, {
          error: { message: 'not a chat completion', type: 'invalid_request_error' },
        });
        return;
      }
      const { model } = parsed.data;
      const message =
        mention?.approval && !toolRan
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${requests}`,
                  type: 'function',
                  function: { name: options.toolName, arguments: JSON.stringify({ target: mention.marker }) },
                },
              ],
            }
          : { role: 'assistant', content: options.answerFor(mention?.marker ?? 'unknown') };
      if (mention) options.onReply(mention.marker, 'tool_calls' in message ? 'toolCall' : 'modelAnswer');
      sendCompletion(response, JSON.parse(raw), {
        id: `chatcmpl-${requests}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message,
            finish_reason: 'tool_calls' in message ? 'tool_calls' : 'stop',
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      });
    })().catch((error: unknown) => sendJson(response, 500, { error: { message: String(error) } }));
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
