import { type IncomingHttpHeaders, request } from 'node:http';

export interface HttpReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

export interface RequestInit {
  readonly method?: string;
  /** Sent exactly as given, `host` included (fetch would not let a test choose it). */
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** One real HTTP request to the local workspace, redirects not followed. */
export function send(url: string | URL, init: RequestInit = {}): Promise<HttpReply> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: init.method ?? 'GET',
        headers: { host: target.host, ...init.headers },
        // A fresh connection each time: a pooled one may belong to a workspace that was restarted.
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

export interface StateMessage {
  readonly channel: string;
  readonly ts: string;
  readonly threadTs?: string;
  readonly user: string;
  readonly text: string;
  readonly blocks: readonly {
    type: string;
    block_id?: string;
    elements?: { action_id?: string; value?: string }[];
  }[];
}

/** The button a message shows for `actionId`, with the block that holds it (a click names both). */
export function buttonOf(message: StateMessage, actionId: string) {
  for (const block of message.blocks)
    for (const element of block.elements ?? []) if (element.action_id === actionId) return { block, element };
  return undefined;
}

export interface WorkspaceState {
  readonly messages: readonly StateMessage[];
  readonly ephemerals: readonly { channel: string; threadTs?: string; text: string }[];
}

/** A browser tab signed in with the printed URL: it sends its cookie and, like a browser, its origin. */
export interface SignedInTab {
  /** `http://localhost:<port>`, the page's own origin. */
  readonly origin: string;
  /** `name=value` of the cookie the printed URL set. */
  readonly cookie: string;
  /** What the exchange of the printed URL answered (a redirect to the page, with the cookie). */
  readonly exchange: HttpReply;
  get(path: string): Promise<HttpReply>;
  post(path: string, body: unknown): Promise<HttpReply>;
  state(as: string): Promise<WorkspaceState>;
}

/** Opens the URL holdfast printed, the way a browser does, and keeps the cookie it sets. */
export async function signIn(printedUrl: string): Promise<SignedInTab> {
  const url = new URL(printedUrl);
  const exchange = await send(url);
  const cookie = exchange.headers['set-cookie']?.[0]?.split(';')[0] ?? '';
  const sameOrigin = { cookie, 'sec-fetch-site': 'same-origin' };
  const tab: SignedInTab = {
    origin: url.origin,
    cookie,
    exchange,
    get: (path) => send(new URL(path, url), { headers: sameOrigin }),
    post: (path, body) =>
      send(new URL(path, url), {
        method: 'POST',
        headers: { ...sameOrigin, origin: url.origin, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    async state(as) {
      const reply = await tab.get(`/state?as=${as}`);
      if (reply.status !== 200) throw new Error(`/state answered ${reply.status}: ${reply.text}`);
      return JSON.parse(reply.text) as WorkspaceState;
    },
  };
  return tab;
}

/**
 * Reads `/state` each time the workspace's `/stream` says something changed, until `find` returns
 * something; the flow is asynchronous across two HTTP hops.
 */
export function waitForState<T>(
  tab: SignedInTab,
  as: string,
  find: (state: WorkspaceState) => T | undefined,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const url = new URL('/stream', tab.origin);
  return new Promise<T>((resolve, reject) => {
    let last: WorkspaceState | undefined;
    let settled = false;
    let checking = Promise.resolve();
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      stream.destroy();
      outcome();
    };
    const check = () => {
      checking = checking.then(async () => {
        if (settled) return;
        last = await tab.state(as);
        const found = find(last);
        if (found !== undefined) finish(() => resolve(found));
      });
      checking.catch((error: unknown) => finish(() => reject(error)));
    };
    const timer = setTimeout(
      () =>
        finish(() => reject(new Error(`never saw ${what}; last state:\n${JSON.stringify(last, null, 2)}`))),
      timeoutMs,
    );
    const stream = request(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        headers: { host: url.host, cookie: tab.cookie, 'sec-fetch-site': 'same-origin' },
      },
      (response) => {
        if (response.statusCode !== 200) {
          finish(() => reject(new Error(`/stream answered ${response.statusCode}`)));
          return;
        }
        // The stream opens with a change event, so the state is read once before anything new happens.
        response.on('data', (chunk: Buffer) => {
          if (chunk.toString('utf8').includes('event: change')) check();
        });
      },
    );
    stream.on('error', (error) => finish(() => reject(error)));
    stream.end();
  });
}
