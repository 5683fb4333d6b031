import nock from 'nock';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestLogger } from '../../test/support/test-logger.js';
import type { ChatMessage, ChatModel, ToolSpec } from '../agent/chat-model.js';
import {
  ModelAuthError,
  ModelBadRequestError,
  ModelRateLimitedError,
  ModelRequestAbortedError,
  ModelResponseInvalidError,
  ModelTimeoutError,
  ModelUnavailableError,
} from './model-errors.js';
import { createOpenAIChatModel } from './openai-chat-model.js';

const API_HOST = 'https://api.openai.test';
const COMPLETIONS_PATH = '/v1/chat/completions';
const MAX_RETRIES = 2;

const shellTool: ToolSpec = {
  name: 'run_shell',
  description: 'Runs a shell command in the work directory',
  parameters: {
    type: 'object',
    properties: { command: { type: 'string' } },
    required: ['command'],
    additionalProperties: false,
  },
};

const conversation: ChatMessage[] = [
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

function completion(message: Record<string, unknown>, finishReason = 'stop') {
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

function toolCall(id: string, name: string, args: string) {
  return { id, type: 'function', function: { name, arguments: args } };
}

const openaiError = (message: string, type: string, code: string | null) => ({
  error: { message, type, param: null, code },
});

interface Harness {
  readonly model: ChatModel;
  /** The JSON bodies the SDK sent, in order. */
  readonly requests: unknown[];
}

function harness({
  maxRetries = MAX_RETRIES,
  timeout,
}: {
  maxRetries?: number;
  timeout?: number;
} = {}): Harness {
  const client = new OpenAI({ apiKey: 'test-key', baseURL: `${API_HOST}/v1`, maxRetries, timeout });
  const { logger } = createTestLogger({ failOnWarn: true });
  return { model: createOpenAIChatModel({ client, model: 'gpt-test', logger }), requests: [] };
}

/** Serves `responses` in order, one per request, recording each request body. */
function serve(
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

beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});

afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe('createOpenAIChatModel', () => {
  describe('when the model asks for one tool call', () => {
    it('sends the mapped transcript and tool schema, and returns the call', async () => {
      const { model, requests } = harness();
      const scope = serve(requests, [
        200,
        completion(
          { content: null, tool_calls: [toolCall('call_du', 'run_shell', '{"command":"du -sh /srv/logs"}')] },
          'tool_calls',
        ),
      ]);

      const result = await model.complete({ messages: conversation, tools: [shellTool] });

      expect(result).toEqual({
        content: null,
        toolCalls: [{ id: 'call_du', name: 'run_shell', arguments: '{"command":"du -sh /srv/logs"}' }],
        usage: { promptTokens: 42, completionTokens: 7 },
      });
      expect(scope.isDone()).toBe(true);
      expect(requests).toEqual([
        {
          model: 'gpt-test',
          messages: [
            { role: 'system', content: 'You are holdfast.' },
            { role: 'user', content: 'what is in /srv?', name: 'U024BE7LH' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: 'call_ls',
                  type: 'function',
                  function: { name: 'run_shell', arguments: '{"command":"ls /srv"}' },
                },
              ],
            },
            { role: 'tool', tool_call_id: 'call_ls', content: 'app\nlogs' },
            { role: 'assistant', content: 'It holds app and logs.' },
            { role: 'user', content: 'how big is logs?' },
          ],
          tools: [
            {
              type: 'function',
              function: {
                name: 'run_shell',
                description: 'Runs a shell command in the work directory',
                parameters: shellTool.parameters,
              },
            },
          ],
        },
      ]);
    });
  });

  describe('when the model asks for parallel tool calls', () => {
    it('returns every call in the order the model gave them', async () => {
      const { model, requests } = harness();
      serve(requests, [
        200,
        completion(
          {
            content: null,
            tool_calls: [
              toolCall('call_a', 'run_shell', '{"command":"uptime"}'),
              toolCall('call_b', 'http_get', '{"url":"https://status.example"}'),
            ],
          },
          'tool_calls',
        ),
      ]);

      const result = await model.complete({ messages: conversation, tools: [shellTool] });

      expect(result.toolCalls).toEqual([
        { id: 'call_a', name: 'run_shell', arguments: '{"command":"uptime"}' },
        { id: 'call_b', name: 'http_get', arguments: '{"url":"https://status.example"}' },
      ]);
    });
  });

  describe('when the model answers in text', () => {
    it('returns the text with no tool calls, and sends no tools key when there are none', async () => {
      const { model, requests } = harness();
      serve(requests, [200, completion({ content: 'logs is 2.1G.' })]);

      const result = await model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] });

      expect(result).toEqual({
        content: 'logs is 2.1G.',
        toolCalls: [],
        usage: { promptTokens: 42, completionTokens: 7 },
      });
      expect(requests).toEqual([{ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }]);
    });
  });

  describe('when the provider rate limits once', () => {
    it('lets the SDK retry and returns the second answer', async () => {
      const { model, requests } = harness();
      serve(
        requests,
        [429, openaiError('Rate limit reached', 'requests', 'rate_limit_exceeded'), { 'retry-after': '0' }],
        [200, completion({ content: 'done' })],
      );

      const result = await model.complete({ messages: conversation, tools: [shellTool] });

      expect(result.content).toBe('done');
      expect(requests).toHaveLength(2);
    });
  });

  describe('when the provider keeps rate limiting', () => {
    it('throws ModelRateLimitedError carrying the wait the provider asked for', async () => {
      const { model, requests } = harness();
      const limited: [number, unknown, Record<string, string>] = [
        429,
        openaiError('Rate limit reached', 'requests', 'rate_limit_exceeded'),
        // Only retry-after-ms: the SDK treats a zero there as absent and would wait out retry-after instead.
        { 'retry-after-ms': '0', 'x-request-id': 'req_limited' },
      ];
      serve(requests, limited, limited, limited);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelRateLimitedError);
      expect(error).toMatchObject({
        code: 'model_rate_limited',
        retryable: true,
        retryAfterMs: 0,
        status: 429,
        requestId: 'req_limited',
        providerCode: 'rate_limit_exceeded',
      });
      expect(requests).toHaveLength(MAX_RETRIES + 1);
    });
  });

  describe('when the provider rate limits with retry-after in seconds', () => {
    it('reports the wait in milliseconds', async () => {
      const { model, requests } = harness({ maxRetries: 0 });
      serve(requests, [
        429,
        openaiError('Rate limit reached', 'tokens', 'rate_limit_exceeded'),
        { 'retry-after': '20' },
      ]);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toMatchObject({ code: 'model_rate_limited', retryAfterMs: 20_000 });
      expect(requests).toHaveLength(1);
    });
  });

  describe('when the provider fails with 5xx on every attempt', () => {
    it('throws a retryable ModelUnavailableError after maxRetries + 1 requests', async () => {
      const { model, requests } = harness();
      const failing: [number, unknown, Record<string, string>] = [
        503,
        openaiError('The server is overloaded', 'server_error', null),
        { 'retry-after-ms': '0' },
      ];
      const scope = serve(requests, failing, failing, failing);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect(error).toMatchObject({ code: 'model_unavailable', retryable: true, status: 503 });
      expect(requests).toHaveLength(MAX_RETRIES + 1);
      expect(scope.isDone()).toBe(true);
    });
  });

  describe('when the connection fails', () => {
    it('throws a retryable ModelUnavailableError', async () => {
      const { model } = harness({ maxRetries: 0 });
      nock(API_HOST).post(COMPLETIONS_PATH).replyWithError({ code: 'ECONNRESET', message: 'socket hang up' });

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect(error).toMatchObject({ code: 'model_unavailable', retryable: true, status: undefined });
    });
  });

  describe('when the provider does not answer within the client timeout', () => {
    it('throws a retryable ModelTimeoutError', async () => {
      const { model } = harness({ maxRetries: 0, timeout: 1 });
      // The reply never comes, so only the SDK's own timeout can end the request.
      nock(API_HOST)
        .post(COMPLETIONS_PATH)
        .reply((_uri, _body, callback) => void callback);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelTimeoutError);
      expect(error).toMatchObject({ code: 'model_timeout', retryable: true });
    });
  });

  describe('when the API key is rejected', () => {
    it('throws ModelAuthError at once, with a message that does not echo the key', async () => {
      const { model, requests } = harness();
      serve(requests, [
        401,
        openaiError('Incorrect API key provided: test-key.', 'invalid_request_error', 'invalid_api_key'),
      ]);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelAuthError);
      expect(error).toMatchObject({ code: 'model_auth_failed', retryable: false, status: 401 });
      expect((error as Error).message).not.toContain('test-key');
      expect((error as Error).cause).toBeUndefined();
      expect(requests).toHaveLength(1);
    });
  });

  describe('when the request is refused as malformed', () => {
    it('throws ModelBadRequestError without retrying', async () => {
      const { model, requests } = harness();
      serve(requests, [
        400,
        openaiError(
          "Invalid schema for function 'run_shell'",
          'invalid_request_error',
          'invalid_function_parameters',
        ),
      ]);

      const error = await model
        .complete({ messages: conversation, tools: [shellTool] })
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelBadRequestError);
      expect(error).toMatchObject({
        code: 'model_bad_request',
        retryable: false,
        providerCode: 'invalid_function_parameters',
      });
      expect(requests).toHaveLength(1);
    });
  });

  describe('when the reply is not a usable completion', () => {
    it('throws ModelResponseInvalidError for a body with no choices', async () => {
      const { model, requests } = harness();
      serve(requests, [200, { id: 'chatcmpl-test', object: 'chat.completion', choices: [] }]);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelResponseInvalidError);
      expect(error).toMatchObject({
        code: 'model_response_invalid',
        issues: [expect.stringContaining('choices')],
      });
    });

    it('throws ModelResponseInvalidError for a tool call with no function', async () => {
      const { model, requests } = harness();
      serve(requests, [
        200,
        completion({ content: null, tool_calls: [{ id: 'call_x', type: 'function' }] }, 'tool_calls'),
      ]);

      const error = await model
        .complete({ messages: conversation, tools: [shellTool] })
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelResponseInvalidError);
      expect((error as ModelResponseInvalidError).issues).toEqual([
        expect.stringContaining('choices.0.message.tool_calls.0.function'),
      ]);
    });

    it('throws ModelResponseInvalidError for a JSON body cut short', async () => {
      const { model, requests } = harness();
      serve(requests, [200, '{"choices":[{"message":', { 'content-type': 'application/json' }]);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelResponseInvalidError);
    });

    it('throws ModelResponseInvalidError for an HTML page from a proxy', async () => {
      const { model, requests } = harness();
      serve(requests, [200, '<html>Sign in to the proxy</html>', { 'content-type': 'text/html' }]);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelResponseInvalidError);
    });
  });

  describe('when the caller aborts', () => {
    it('stops the request in flight and throws ModelRequestAbortedError without retrying', async () => {
      const { model } = harness();
      const controller = new AbortController();
      let requestsSeen = 0;
      // The reply never comes: the abort from inside the handler is the only way this request ends.
      nock(API_HOST)
        .post(COMPLETIONS_PATH)
        .times(MAX_RETRIES + 1)
        .reply((_uri, _body, callback) => {
          requestsSeen += 1;
          controller.abort();
          void callback;
        });

      const error = await model
        .complete({ messages: conversation, tools: [], signal: controller.signal })
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelRequestAbortedError);
      expect(error).toMatchObject({ code: 'model_aborted', retryable: false });
      expect(requestsSeen).toBe(1);
    });

    it('sends nothing when the signal is already aborted', async () => {
      const { model, requests } = harness();
      const scope = serve(requests, [200, completion({ content: 'never' })]);

      const error = await model
        .complete({ messages: conversation, tools: [], signal: AbortSignal.abort() })
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelRequestAbortedError);
      expect(requests).toHaveLength(0);
      expect(scope.isDone()).toBe(false);
    });
  });
});
