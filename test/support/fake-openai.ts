/** The OpenAI host as nock serves it to the real SDK, for the adapter's tests. */
import { Readable } from 'node:stream';
import nock from 'nock';
import OpenAI from 'openai';
import { afterEach, beforeEach } from 'vitest';
import type { ChatMessage, ChatModel, ToolSpec } from '../../src/agent/chat-model.js';
import { createOpenAIChatModel } from '../../src/llm/openai-chat-model.js';
import { createTestLogger } from './test-logger.js';

export const API_HOST = 'https://api.openai.test';
export const COMPLETIONS_PATH = '/v1/chat/completions';
export const MAX_RETRIES = 2;

export const shellTool: ToolSpec = {
  name: 'run_shell',
  description: 'Runs a shell command in the work directory',
  parameters: {
    type: 'object',
    properties: { command: { type: 'string' } },
    required: ['command'],
    additionalProperties: false,
  },
};

export const conversation: ChatMessage[] = [
  { role: 'system', content: 'You are holdfast.' },
  { role: 'user', content: 'what is in /srv?', name: 'U024BE7LH' },
  {
    role: 'assistant',
    content: null,
    toolCalls: [{ id: 'call_ls', name: 'run_shell', arguments: '{"command":"ls /srv"}' }],
  },
  { role: 'tool', toolCallId: 'call_ls', content: 'app\nlogs' },
  { role: 'assistant', content: 'It holds app and logs.' },
  { role: 'user', content: 'how big is logs?' },
];

export function completion(message: Record<string, unknown>, finishReason = 'stop') {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [
      { index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finishReason },
    ],
    usage: { prompt_tokens: 42, completion_tokens: 7, total_tokens: 49 },
  };
}

export function toolCall(id: string, name: string, args: string) {
  return { id, type: 'function', function: { name, arguments: args } };
}

export const openaiError = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});

export interface Harness {
  readonly model: ChatModel;
  /** The JSON bodies the SDK sent, in order. */
  readonly requests: unknown[];
}

export function harness({
  maxRetries = MAX_RETRIES,
  timeout,
}: {
  maxRetries?: number;
  timeout?: number;
} = {}): Harness {
  const client = new OpenAI({ apiKey: 'test-key', baseURL: `${API_HOST}/v1`, maxRetries, timeout });
  const { logger } = createTestLogger({ failOnWarn: true });
  return {
    // A broken stream is asked again at once: tests wait on events, never on the clock.
    model: createOpenAIChatModel({ client, model: 'gpt-test', logger, streamRetryDelayMs: () => 0 }),
    requests: [],
  };
}

/** Serves `responses` in order, one per request, recording each request body. */
export function serve(
  requests: unknown[],
  ...responses: Array<[status: number, body: unknown, headers?: Record<string, string>]>
) {
  const scope = nock(API_HOST);
  for (const [status, body, headers] of responses) {
    scope.post(COMPLETIONS_PATH).reply((_uri, requestBody) => {
      requests.push(requestBody);
      return [status, body, headers ?? {}];
    });
  }
  return scope;
}

/** nock stands in for OpenAI's host; nothing else may leave the machine. Call at the top of a test file. */
export function useFakeOpenAI(): void {
  beforeEach(() => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
  });
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });
}

/** One streamed chunk of a chat completion, as OpenAI sends it. */
export function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    usage: null,
  };
}

/** The last chunk when `stream_options.include_usage` is set: no choices, only usage. */
export function usageChunk(promptTokens = 42, completionTokens = 7) {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [],
    usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: 0 },
  };
}

/** Server-sent events as the chat completions endpoint streams them, ending with `[DONE]`. */
export function sse(chunks: readonly unknown[], { done = true }: { done?: boolean } = {}): string {
  return `${chunks.map((value) => `data: ${JSON.stringify(value)}\n\n`).join('')}${done ? 'data: [DONE]\n\n' : ''}`;
}

export const sseHeaders = { 'content-type': 'text/event-stream' };

/**
 * A streamed answer whose connection is cut after `chunks`: the body errors mid-way, as a reset socket
 * does, after the client has read what came before.
 */
export function brokenSse(chunks: readonly unknown[]): () => Readable {
  return () => {
    let sent = false;
    return new Readable({
      // The cut comes when the reader asks for more, so what was sent is read first.
      read() {
        if (sent) {
          this.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
          return;
        }
        sent = true;
        this.push(sse(chunks, { done: false }));
      },
    });
  };
}

/** Serves streamed responses in order, one per request, recording each request body. */
export function serveStream(requests: unknown[], ...bodies: Array<string | (() => Readable)>) {
  const scope = nock(API_HOST);
  for (const body of bodies) {
    scope.post(COMPLETIONS_PATH).reply((_uri, requestBody) => {
      requests.push(requestBody);
      return [200, typeof body === 'string' ? body : body(), sseHeaders];
    });
  }
  return scope;
}
