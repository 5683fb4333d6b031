import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';
import { readBody, sendJson } from '../../src/local/http-io.js';
import { sendCompletion } from './send-completion.js';

export interface FakeOpenAIEndpoint {
  /** `http://127.0.0.1:<port>/v1`, the value for `OPENAI_BASE_URL`. */
  readonly url: string;
  /** Chat completion request bodies, in order. */
  readonly requests: readonly unknown[];
  /** Every request as `METHOD /path`, the model look-ups included. */
  readonly seen: readonly string[];
}

const notFound = (model: string) => ({
  error: {
    message: `The model \`${model}\` does not exist or you do not have access to it.`,
    type: 'invalid_request_error',
    param: null,
    code: 'model_not_found',
  },
});

/**
 * An OpenAI-compatible endpoint on 127.0.0.1, for tests that run holdfast as a process: it serves the
 * models it is given (`GET /v1/models`, `GET /v1/models/{id}`, 404 for any other, as OpenAI does) and
 * plays back `replies` to chat completions for those models, keeping every request body. Closed when the
 * test finishes.
 */
export async function startFakeOpenAIEndpoint(
  options: { replies?: readonly Record<string, unknown>[]; models?: readonly string[] } = {},
): Promise<FakeOpenAIEndpoint> {
  const models = options.models ?? ['gpt-4.1-mini', 'gpt-4.1'];
  const replies = options.replies ?? [];
  const requests: unknown[] = [];
  const seen: string[] = [];
  const model = (id: string) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'holdfast-test' });
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    seen.push(`${request.method} ${path}`);
    const raw = await readBody(request);
    if (request.method === 'GET' && path === '/v1/models') {
      sendJson(response, 200, { object: 'list', data: models.map(model) });
      return;
    }
    if (request.method === 'GET' && path.startsWith('/v1/models/')) {
      const id = decodeURIComponent(path.slice('/v1/models/'.length));
      if (models.includes(id)) sendJson(response, 200, model(id));
      else sendJson(response, 404, notFound(id));
      return;
    }
    if (request.method === 'POST' && path === '/v1/chat/completions') {
      const body = JSON.parse(raw) as { model?: string };
      if (!models.includes(body.model ?? '')) {
        sendJson(response, 404, notFound(body.model ?? ''));
        return;
      }
      requests.push(body);
      const message = replies[requests.length - 1] ?? { content: 'out of script' };
      sendCompletion(response, body, {
        id: `chatcmpl-${requests.length}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
      return;
    }
    sendJson(response, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, seen };
}
