import { Agent, type Dispatcher, request } from 'undici';

/** The `fetch` holdfast's Slack and model clients send with, and the connection pool behind it. */
export interface HttpTransport {
  readonly fetch: typeof fetch;
  close(): Promise<void>;
}

/**
 * HTTP for the Slack `WebClient`s and the OpenAI client: undici's `request` behind the `fetch` signature
 * both take. Through WHATWG fetch, whose streams and abort plumbing are most of the cost, a Slack call
 * took 2.6–2.8 times the CPU it takes through this, and a streamed model reply 1.4–1.9 times
 * (`npm run bench`); an answer makes five or so of the first and one or two of the second.
 *
 * What the clients rely on is kept: an `AbortSignal` ends the call with the signal's reason, a failure
 * to connect or an answer cut off is fetch's `TypeError('fetch failed')` with the socket's error as its
 * cause, and a redirect is refused (`WebClient` asks for `redirect: 'error'`; neither API redirects). An
 * answer is read whole and handed back with the parts of a `Response` that read it, except a stream of
 * server-sent events (a model reply), whose body is read as it arrives. A request body that is not text
 * or bytes (a file upload's multipart form) goes to fetch, which encodes it.
 */
export function createHttpTransport(): HttpTransport {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  const send: typeof fetch = async (input, init = {}) => {
    const body = init.body;
    if (!(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array))
      return fetch(input, init);
    const url = typeof input === 'string' || input instanceof URL ? input : input.url;
    // As fetch fails: with the signal's reason once it has fired, else `TypeError('fetch failed')`.
    const failed = (error: unknown) =>
      init.signal?.aborted ? init.signal.reason : new TypeError('fetch failed', { cause: error });
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request(url, {
        method: (init.method ?? 'GET') as 'POST',
        headers: plainHeaders(init.headers),
        body: body ?? undefined,
        signal: init.signal ?? undefined,
        dispatcher,
      });
    } catch (error) {
      throw failed(error);
    }
    const { statusCode, headers } = answer;
    if (statusCode >= 300 && statusCode < 400 && (init.redirect ?? 'follow') !== 'manual') {
      await answer.body.dump();
      throw new TypeError('fetch failed', { cause: new Error(`unexpected redirect (HTTP ${statusCode})`) });
    }
    if (String(headers['content-type'] ?? '').startsWith('text/event-stream')) {
      const streamed = new StreamedResponse(
        String(url),
        statusCode,
        responseHeaders(headers),
        answer.body,
        failed,
      );
      return streamed as unknown as Response;
    }
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(await answer.body.arrayBuffer());
    } catch (error) {
      // Cut off mid-answer: the call may have acted, and the caller is told it failed, as for no answer.
      throw failed(error);
    }
    return new ReadResponse(String(url), statusCode, responseHeaders(headers), bytes) as unknown as Response;
  };
  return { fetch: send, close: () => dispatcher.close() };
}

/** What both kinds of answer share with a `Response`: the status line, the headers, and `json()`. */
abstract class TransportResponse {
  readonly ok: boolean;
  readonly statusText = '';
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly headers: Headers,
  ) {
    this.ok = status >= 200 && status < 300;
  }

  abstract text(): Promise<string>;

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

/**
 * An answer already read to the end. A WHATWG `Response` would wrap these bytes in a stream again, which
 * cost as much CPU as the request itself; the stream is made only if something asks for `body`.
 */
class ReadResponse extends TransportResponse {
  constructor(
    url: string,
    status: number,
    headers: Headers,
    private readonly bytes: Uint8Array,
  ) {
    super(url, status, headers);
  }

  get body(): ReadableStream<Uint8Array> {
    return new Response(this.bytes).body as ReadableStream<Uint8Array>;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    this.bodyUsed = true;
    return this.bytes.slice().buffer;
  }

  async text(): Promise<string> {
    this.bodyUsed = true;
    return utf8.decode(this.bytes);
  }

  clone(): ReadResponse {
    return new ReadResponse(this.url, this.status, new Headers(this.headers), this.bytes);
  }
}

/**
 * A stream of server-sent events, read as it arrives. Its `body` is what the OpenAI client iterates (it
 * takes anything async-iterable there): the socket's chunks, with a cut mid-stream failing as fetch's
 * would, and an early end (`return`, as the client does when it stops reading) closing the socket.
 */
class StreamedResponse extends TransportResponse {
  readonly body: AsyncIterable<Uint8Array>;

  constructor(
    url: string,
    status: number,
    headers: Headers,
    private readonly stream: Dispatcher.ResponseData['body'],
    private readonly failed: (error: unknown) => unknown,
  ) {
    super(url, status, headers);
    this.body = { [Symbol.asyncIterator]: () => this.#chunks() };
  }

  #chunks(): AsyncIterator<Uint8Array> {
    this.bodyUsed = true;
    const chunks = this.stream[Symbol.asyncIterator]();
    return {
      next: () =>
        chunks.next().catch((error: unknown) => {
          throw this.failed(error);
        }),
      return: async () => {
        // Also before the first chunk, when an iterator's own `return` would leave the socket open.
        this.stream.destroy();
        return { done: true, value: undefined };
      },
    };
  }

  async text(): Promise<string> {
    this.bodyUsed = true;
    try {
      return await this.stream.text();
    } catch (error) {
      throw this.failed(error);
    }
  }
}

const utf8 = new TextDecoder();

function plainHeaders(headers: RequestInit['headers']): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers));
  return headers as Record<string, string>;
}

function responseHeaders(headers: Record<string, string | string[] | undefined>): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const each of value) result.append(name, each);
    else result.append(name, value);
  }
  return result;
}
