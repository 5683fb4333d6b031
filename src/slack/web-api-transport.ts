import { Agent, request } from 'undici';

/** The `fetch` the Web API clients send with, and the connection pool behind it, closed at shutdown. */
export interface WebApiTransport {
  readonly fetch: typeof fetch;
  close(): Promise<void>;
}

/**
 * HTTP for `WebClient`: undici's `request` behind the `fetch` signature the client takes. Through WHATWG
 * fetch, whose streams and abort plumbing are most of the cost, a Slack call took about 2.7 times the
 * CPU it takes through this (`npm run bench`: 0.48 against 0.18 ms), and an answer makes five or so.
 *
 * What the client relies on is kept: an `AbortSignal` ends the call with the signal's reason, a failure
 * to connect is fetch's `TypeError('fetch failed')` with the socket's error as its cause, and a redirect
 * is refused (`WebClient` asks for `redirect: 'error'`, and the Web API never redirects). The answer is
 * read whole and handed back with the parts of a `Response` that read it. A body that is not text or
 * bytes (a file upload's multipart form) goes to fetch, which encodes it.
 */
export function createWebApiTransport(): WebApiTransport {
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

/**
 * An answer already read to the end. A WHATWG `Response` would wrap these bytes in a stream again, which
 * cost as much CPU as the request itself; the stream is made only if something asks for `body`.
 */
class ReadResponse {
  readonly ok: boolean;
  readonly statusText = '';
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;

  constructor(
    readonly url: string,
    readonly status: number,
    readonly headers: Headers,
    private readonly bytes: Uint8Array,
  ) {
    this.ok = status >= 200 && status < 300;
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

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  clone(): ReadResponse {
    return new ReadResponse(this.url, this.status, new Headers(this.headers), this.bytes);
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
