import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelStreamEvent } from '../agent/chat-model.js';
import { createOpenAIChatModel, ModelRateLimitedError, ModelRequestAbortedError } from '../llm/index.js';
import { createHttpTransport, type HttpTransport } from './http-transport.js';

type Answer = (response: ServerResponse, attempt: number) => void;

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`;

const opening = chunk({ role: 'assistant', content: '' });
const words = ['The ', 'no-op ', 'ran. ', 'Done.'].map((word) => chunk({ content: word }));
const ending = `${chunk({}, 'stop')}data: [DONE]\n\n`;

function eventStream(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
}

describe('the transport, under the real OpenAI client', () => {
  let server: Server;
  let baseURL: string;
  let answer: Answer;
  let attempts: number;
  let closedEarly: number;
  let transport: HttpTransport;

  beforeEach(async () => {
    attempts = 0;
    closedEarly = 0;
    server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        attempts += 1;
        response.on('close', () => {
          if (!response.writableFinished) closedEarly += 1;
        });
        answer(response, attempts);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    transport = createHttpTransport();
  });

  afterEach(async () => {
    await transport.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const model = () =>
    createOpenAIChatModel({
      client: new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 2, fetch: transport.fetch }),
      model: 'gpt-test',
      logger: pino({ level: 'silent' }),
      streamRetryDelayMs: () => 0,
    });
  const request = (signal?: AbortSignal) => ({
    messages: [{ role: 'user' as const, content: 'restart web-1' }],
    tools: [],
    signal,
  });

  it('streams a reply as its events arrive', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    answer = (response) => {
      eventStream(response);
      response.write(opening + words[0]);
      void held.then(() => response.end(words.slice(1).join('') + ending));
    };
    const events: ModelStreamEvent[] = [];
    const replied = model().stream!(request(), (event) => {
      events.push(event);
      // The first word is seen while the rest of the reply is still held back by the server.
      if (events.length === 1) release();
    });

    await expect(replied).resolves.toMatchObject({ content: 'The no-op ran. Done.', toolCalls: [] });
    expect(events[0]).toEqual({ type: 'text', delta: 'The ' });
  });

  it('asks again when the stream is cut mid-reply, and the second answer stands', async () => {
    answer = (response, attempt) => {
      eventStream(response);
      if (attempt === 1) {
        response.write(opening + words[0]);
        setTimeout(() => response.destroy(), 20);
        return;
      }
      response.end(opening + words.join('') + ending);
    };
    const events: ModelStreamEvent[] = [];

    const reply = await model().stream!(request(), (event) => events.push(event));

    expect(reply.content).toBe('The no-op ran. Done.');
    expect(attempts).toBe(2);
    expect(events).toContainEqual({ type: 'restart' });
  });

  it('stops reading and closes the connection when the turn is cancelled mid-reply', async () => {
    answer = (response) => {
      eventStream(response);
      response.write(opening + words[0]);
    };
    const cancel = new AbortController();

    const replied = model().stream!(request(cancel.signal), () => cancel.abort());

    await expect(replied).rejects.toBeInstanceOf(ModelRequestAbortedError);
    await expect.poll(() => closedEarly).toBe(1);
    expect(attempts).toBe(1);
  });

  it('reads an error answer whole and reports it as the model error it is', async () => {
    answer = (response) => {
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
      response.end(
        JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: null } }),
      );
    };
    const client = new OpenAI({ apiKey: 'sk-test', baseURL, maxRetries: 0, fetch: transport.fetch });
    const limited = createOpenAIChatModel({ client, model: 'gpt-test', logger: pino({ level: 'silent' }) });

    const failure = await limited.stream!(request(), () => {}).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(ModelRateLimitedError);
    expect(failure).toMatchObject({ retryAfterMs: 7_000 });
  });
});
