import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { readBody, sendJson } from '../../src/local/http-io.js';
import { sendCompletion } from './send-completion.js';

/**
 * An OpenAI-compatible chat completions server on 127.0.0.1, for holdfast running as a child process
 * (`OPENAI_BASE_URL`), where nock cannot reach. A function decides each reply from the request, the way
 * a model would from the transcript; a request can be held unanswered (a model call in flight).
 */
export interface FakeOpenAIServer {
  /** `http://127.0.0.1:<port>/v1`, the value for `OPENAI_BASE_URL`. */
  readonly url: string;
  readonly apiKey: string;
  /** Every chat completions request, in arrival order. */
  readonly requests: readonly ChatRequest[];
  /** The next request that matches is held unanswered until `release()`. */
  holdNext(matches?: (request: ChatRequest) => boolean): HeldRequest;
  close(): Promise<void>;
}

export interface HeldRequest {
  readonly arrived: Promise<ChatRequest>;
  /** Answers the request, if its caller is still there. */
  release(): void;
}

const chatMessageSchema = z.object({
  role: z.string(),
  content: z.string().nullable().optional(),
  tool_call_id: z.string().optional(),
  tool_calls: z
    .array(z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) }))
    .optional(),
});
const chatRequestSchema = z.object({ model: z.string(), messages: z.array(chatMessageSchema) });
export type ChatRequest = z.output<typeof chatRequestSchema>;
export type ChatRequestMessage = ChatRequest['messages'][number];

export type FakeModelReply =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool-calls'; readonly calls: ReadonlyArray<{ name: string; args: unknown }> };

export interface FakeOpenAIOptions {
  readonly reply: (request: ChatRequest) => FakeModelReply;
  readonly apiKey?: string;
}

export async function startFakeOpenAIServer(options: FakeOpenAIOptions): Promise<FakeOpenAIServer> {
  const apiKey = options.apiKey ?? 'sk-fake-openai';
  const requests: ChatRequest[] = [];
  const holds: Array<{
    matches: (request: ChatRequest) => boolean;
    arrived: (request: ChatRequest) => void;
    released: Promise<void>;
  }> = [];
  const releases = new Set<() => void>();
  let callCounter = 0;

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (request.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(response, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
      return;
    }
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      sendJson(response, 401, { error: { message: 'bad key', type: 'invalid_request_error' } });
      return;
    }
    const parsed = chatRequestSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) {
      sendJson(response, 400, { error: { message: parsed.error.message, type: 'invalid_request_error' } });
      return;
    }
    requests.push(parsed.data);
    const hold = holds.findIndex((candidate) => candidate.matches(parsed.data));
    if (hold >= 0) {
      const [held] = holds.splice(hold, 1);
      held?.arrived(parsed.data);
      await held?.released;
      if (response.destroyed) return;
    }
    sendCompletion(
      response,
      JSON.parse(raw),
      completion(options.reply(parsed.data), () => {
        callCounter += 1;
        return `call_${callCounter}`;
      }),
    );
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.destroyed)
        sendJson(response, 500, { error: { message: String(error), type: 'server_error' } });
    });
  });
  // A kept-alive socket closed for idleness just as the app sends on it fails with a reset, a race of
  // this stand-in's 5 s default: a keep-alive longer than any quiet stretch of a test rules it out.
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    holdNext(matches = () => true) {
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      releases.add(release);
      let arrived: (request: ChatRequest) => void = () => {};
      const arrival = new Promise<ChatRequest>((resolve) => {
        arrived = resolve;
      });
      holds.push({ matches, arrived, released });
      return { arrived: arrival, release };
    },
    async close() {
      for (const release of releases) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function completion(reply: FakeModelReply, nextCallId: () => string) {
  const message =
    reply.type === 'text'
      ? { role: 'assistant', content: reply.text, refusal: null }
      : {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: reply.calls.map((call) => ({
            id: nextCallId(),
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          })),
        };
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_767_225_000,
    model: 'gpt-fake',
    choices: [{ index: 0, message, finish_reason: reply.type === 'text' ? 'stop' : 'tool_calls' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** The text of the last message a request ends with, and whose it is. */
export function lastMessage(request: ChatRequest): ChatRequestMessage | undefined {
  return request.messages.at(-1);
}
