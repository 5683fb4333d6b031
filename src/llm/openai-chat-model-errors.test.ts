import nock from 'nock';
import { describe, expect, it } from 'vitest';
import {
  API_HOST,
  COMPLETIONS_PATH,
  completion,
  conversation,
  harness,
  MAX_RETRIES,
  openaiError,
  serve,
  shellTool,
  useFakeOpenAI,
} from '../../test/support/fake-openai.js';
import {
  ModelAuthError,
  ModelBadRequestError,
  ModelNotFoundError,
  ModelRateLimitedError,
  ModelRequestAbortedError,
  ModelResponseInvalidError,
  ModelTimeoutError,
  ModelUnavailableError,
  ModelUnreachableError,
} from './model-errors.js';

useFakeOpenAI();

describe('createOpenAIChatModel failures', () => {
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
    it('throws a retryable ModelUnreachableError naming the endpoint and the reason', async () => {
      const { model } = harness({ maxRetries: 0 });
      nock(API_HOST)
        .post(COMPLETIONS_PATH)
        .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelUnreachableError);
      expect(error).toMatchObject({
        code: 'model_unreachable',
        retryable: true,
        status: undefined,
        endpoint: `${API_HOST}/v1`,
        reason: 'the connection was reset (ECONNRESET)',
      });
      expect((error as Error).message).toBe(
        `Could not reach the model endpoint ${API_HOST}/v1: the connection was reset (ECONNRESET)`,
      );
    });
  });

  describe('when the model does not exist', () => {
    it('throws ModelNotFoundError naming the model and the endpoint, without retrying', async () => {
      const { model, requests } = harness();
      serve(requests, [
        404,
        openaiError('The model `gpt-test` does not exist.', 'invalid_request_error', 'model_not_found'),
      ]);

      const error = await model.complete({ messages: conversation, tools: [] }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ModelNotFoundError);
      expect(error).toMatchObject({
        code: 'model_not_found',
        retryable: false,
        status: 404,
        model: 'gpt-test',
        providerCode: 'model_not_found',
      });
      expect((error as Error).message).toBe(
        `The configured model \`gpt-test\` does not exist at ${API_HOST}/v1`,
      );
      expect(requests).toHaveLength(1);
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
