import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type WebAPIHTTPError,
  type WebAPIRateLimitedError,
  type WebAPIRequestError,
  WebClient,
  type WebClientOptions,
} from '@slack/web-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { networkErrorCode } from '../network-failure.js';
import { createHttpTransport, type HttpTransport } from './http-transport.js';

interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

type Answer = (request: Received, response: ServerResponse) => void;

describe('the Web API transport, under the real WebClient', () => {
  let server: Server;
  let apiUrl: string;
  let answer: Answer;
  let received: Received[];
  let connections: number;
  let transport: HttpTransport;

  beforeEach(async () => {
    received = [];
    connections = 0;
    answer = (_request, response) => json(response, 200, { ok: true });
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const entry = {
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString('latin1'),
        };
        received.push(entry);
        answer(entry, response);
      });
    });
    server.on('connection', () => connections++);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
    transport = createHttpTransport();
  });

  afterEach(async () => {
    await transport.close();
    server.closeAllConnections();
    server.close();
  });

  const client = (options: WebClientOptions = {}) =>
    new WebClient('xoxb-test', {
      slackApiUrl: apiUrl,
      fetch: transport.fetch,
      retryConfig: { retries: 0 },
      ...options,
    });

  it('posts the call form-encoded with the token, and reads the answer and its headers', async () => {
    answer = (_request, response) => {
      response.setHeader('x-oauth-scopes', 'chat:write,im:write');
      json(response, 200, { ok: true, channel: 'C1', ts: '1700000000.000100' });
    };

    const result = await client().chat.postMessage({
      channel: 'C1',
      text: 'deploy done',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*done*' } }],
    });

    expect(result).toMatchObject({ ok: true, channel: 'C1', ts: '1700000000.000100' });
    expect(result.response_metadata?.scopes).toEqual(['chat:write', 'im:write']);
    const [call] = received;
    expect(call?.method).toBe('POST');
    expect(call?.path).toBe('/api/chat.postMessage');
    expect(call?.headers.authorization).toBe('Bearer xoxb-test');
    expect(call?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(call?.body);
    expect(form.get('text')).toBe('deploy done');
    expect(JSON.parse(form.get('blocks') ?? 'null')).toEqual([
      { type: 'section', text: { type: 'mrkdwn', text: '*done*' } },
    ]);
  });

  it('answers as a fetch Response does, for what reads it directly', async () => {
    answer = (_request, response) => {
      response.setHeader('x-slack-req-id', 'req-1');
      json(response, 200, { ok: true, text: 'café' });
    };

    const response = await transport.fetch(`${apiUrl}auth.test`, { method: 'POST', body: 'a=1' });

    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.url).toBe(`${apiUrl}auth.test`);
    expect(response.headers.get('x-slack-req-id')).toBe('req-1');
    expect(await response.clone().json()).toEqual({ ok: true, text: 'café' });
    expect(await new Response(response.clone().body).text()).toBe('{"ok":true,"text":"café"}');
    expect(new TextDecoder().decode(await response.arrayBuffer())).toBe('{"ok":true,"text":"café"}');
  });

  it('keeps its connections open for the calls that follow', async () => {
    const slack = client();
    for (let i = 0; i < 10; i++) await slack.auth.test();

    expect(received).toHaveLength(10);
    // undici may open a second connection while the first is still being handed back to the pool.
    expect(connections).toBeLessThanOrEqual(2);
  });

  it('reports a 429 with its Retry-After, as the client expects', async () => {
    answer = (_request, response) => {
      response.setHeader('retry-after', '7');
      json(response, 429, { ok: false, error: 'ratelimited' });
    };

    const failure = await client({ rejectRateLimitedCalls: true })
      .chat.postMessage({ channel: 'C1', text: 'x' })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(Error);
    expect((failure as WebAPIRateLimitedError).code).toBe('slack_webapi_rate_limited_error');
    expect((failure as WebAPIRateLimitedError).retryAfter).toBe(7);
  });

  it('reports another HTTP status with its body', async () => {
    answer = (_request, response) => {
      response.writeHead(503, { 'content-type': 'text/plain' });
      response.end('upstream unavailable');
    };

    const failure = (await client()
      .chat.postMessage({ channel: 'C1', text: 'x' })
      .catch((error: unknown) => error)) as WebAPIHTTPError;

    expect(failure.code).toBe('slack_webapi_http_error');
    expect(failure.statusCode).toBe(503);
    expect(failure.body).toBe('upstream unavailable');
  });

  it("fails a call that cannot connect as fetch does, with the socket's error as the cause", async () => {
    const failure = (await client({ slackApiUrl: 'http://127.0.0.1:1/api/' })
      .auth.test()
      .catch((error: unknown) => error)) as WebAPIRequestError;

    expect(failure.code).toBe('slack_webapi_request_error');
    expect(failure.original).toBeInstanceOf(TypeError);
    expect(failure.original.message).toBe('fetch failed');
    expect(networkErrorCode(failure.original)).toBe('ECONNREFUSED');
  });

  it("ends a call at the client's timeout with the signal's reason, and drops the request", async () => {
    answer = () => undefined;
    const closed = new Promise<void>((resolve) =>
      server.once('request', (request: IncomingMessage) => request.socket.once('close', () => resolve())),
    );

    const failure = (await client({ timeout: 200 })
      .auth.test()
      .catch((error: unknown) => error)) as WebAPIRequestError;

    expect(failure.code).toBe('slack_webapi_request_error');
    expect(failure.original.name).toBe('TimeoutError');
    await closed;
  });

  it('fails a call whose answer is cut off midway as a request error, with the cause', async () => {
    answer = (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
      response.write('{"ok":true,"ts":"17');
      setTimeout(() => response.socket?.destroy(), 20);
    };

    const failure = (await client()
      .chat.postMessage({ channel: 'C1', text: 'x' })
      .catch((error: unknown) => error)) as WebAPIRequestError;

    expect(failure.code).toBe('slack_webapi_request_error');
    expect(failure.original).toBeInstanceOf(TypeError);
    expect(failure.original.message).toBe('fetch failed');
    expect(failure.original.cause).toBeInstanceOf(Error);
  });

  it('refuses a redirect instead of following it', async () => {
    answer = (_request, response) => {
      response.writeHead(302, { location: '/elsewhere' });
      response.end();
    };

    const failure = (await client()
      .auth.test()
      .catch((error: unknown) => error)) as WebAPIRequestError;

    expect(failure.code).toBe('slack_webapi_request_error');
    expect(failure.original.message).toBe('fetch failed');
    expect(String((failure.original.cause as Error).message)).toContain('unexpected redirect');
    expect(received.map((call) => call.path)).toEqual(['/api/auth.test']);
  });

  it('sends a file upload as multipart form data', async () => {
    const result = await client().apiCall('files.upload', {
      channels: 'C1',
      file: Object.assign(Buffer.from('line one\n'), { name: 'notes.txt' }),
    });

    expect(result.ok).toBe(true);
    const [call] = received;
    expect(call?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(call?.body).toContain('filename="notes.txt"');
    expect(call?.body).toContain('line one');
  });
});

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}
