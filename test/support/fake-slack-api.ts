import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, sendJson } from '../../src/local/http-io.js';
import { parseWebApiParams } from '../../src/local/web-api.js';
import {
  createFakeWorkspace,
  type FakeChannel,
  type FakeIdentity,
  type FakeMessage,
} from './fake-slack-workspace.js';

export type { FakeChannel, FakeIdentity, FakeMessage, FakeMetadata } from './fake-slack-workspace.js';

/**
 * A stand-in for Slack's Web API on 127.0.0.1, for tests that drive the real `WebClient` and Bolt through
 * `SLACK_API_URL`. It answers in Slack's response shapes, keeps the messages it was sent (so a test can
 * read a thread the way a person would, metadata included), records every request, and can be told to
 * fail the next calls of a method (or one particular call) with a Slack error, a 429 or a 5xx, or to do
 * a call and hold its answer back. Posts to `response_url`s under `/respond/` are recorded too, since
 * Bolt's `respond()` sends them to whatever URL the payload carried.
 */
export interface FakeSlackApi {
  /** `http://127.0.0.1:<port>/api/`, the value for `SLACK_API_URL`. */
  readonly url: string;
  readonly origin: string;
  readonly botToken: string;
  readonly appToken: string;
  readonly identity: FakeIdentity;
  /** Every Web API call in arrival order, including the ones the fake failed on purpose. */
  readonly calls: readonly SlackApiCall[];
  /** Every post to a `response_url` handed out by `responseUrl()`. */
  readonly responses: readonly ResponseUrlPost[];
  /** Calls of one method that Slack answered with `ok: true`. */
  succeeded(method: string): SlackApiCall[];
  callsTo(method: string): SlackApiCall[];
  /** Messages posted (and later updated) in a thread, oldest first; `ts` is the thread's root. */
  thread(channel: string, threadTs: string): FakeMessage[];
  message(channel: string, ts: string): FakeMessage | undefined;
  /** The thread's assistant status line as people see it now; '' when none shows. */
  assistantStatus(channel: string, threadTs: string): string;
  /** A URL to put in a payload's `response_url`. */
  responseUrl(name?: string): string;
  /** The next `times` calls of `method` fail as described, then the method works again. */
  failNext(method: string, failure: ScriptedFailure, times?: number): void;
  /** The next `times` calls of `method` whose parameters match fail as described; other calls work. */
  failMatching(
    method: string,
    matches: (params: Record<string, unknown>) => boolean,
    failure: ScriptedFailure,
    times?: number,
  ): void;
  /**
   * The next call of `method` that matches is done (a post is in the thread, recorded as answered) but
   * its HTTP response is held until `release()`: the moment between Slack acting and the caller hearing.
   */
  holdNext(method: string, matches?: (call: SlackApiCall) => boolean): HeldCall;
  setUser(userId: string, profile: { name: string; realName?: string; displayName?: string }): void;
  setGroupMembers(groupId: string, members: readonly string[]): void;
  setChannel(channelId: string, info: FakeChannel): void;
  /** A message a person posted before holdfast was asked (what `conversations.replies` then returns). */
  addHumanMessage(message: {
    channel: string;
    ts: string;
    threadTs?: string;
    user: string;
    text: string;
  }): void;
  /** What `apps.connections.open` hands out (the Socket Mode server). */
  setSocketModeUrl(url: string): void;
  /**
   * Resolves with the first recorded call (already seen or still to come) that matches; rejects after
   * `timeoutMs` so a missing call fails the test instead of hanging it.
   */
  waitFor(
    method: string,
    matches?: (call: SlackApiCall) => boolean,
    timeoutMs?: number,
  ): Promise<SlackApiCall>;
  waitForResponse(matches?: (post: ResponseUrlPost) => boolean, timeoutMs?: number): Promise<ResponseUrlPost>;
  close(): Promise<void>;
}

export interface SlackApiCall {
  readonly method: string;
  /** Form fields as sent; the JSON-valued ones (`blocks`, `view`, ...) parsed. */
  readonly params: Record<string, unknown>;
  readonly token: string | undefined;
  readonly status: number;
  readonly response: Record<string, unknown>;
}

export interface ResponseUrlPost {
  readonly name: string;
  readonly body: Record<string, unknown>;
}

export interface HeldCall {
  /** Resolves with the call once it has arrived (and been done). */
  readonly arrived: Promise<SlackApiCall>;
  /** Sends the held response, if anyone is still there to read it. */
  release(): void;
  /** Closes the connection instead: Slack did the work and its answer is lost on the way back. */
  drop(): void;
}

/** The key holdfast's outbox put in a post's metadata (`<outbox key>#<part>`), if any. */
export function deliveryKeyOf(call: Pick<SlackApiCall, 'params'>): string | undefined {
  const metadata = call.params.metadata as { event_payload?: { key?: unknown } } | undefined;
  const key = metadata?.event_payload?.key;
  return typeof key === 'string' ? key : undefined;
}

export type ScriptedFailure =
  /** HTTP 200 with `{ ok: false, error }`, the way Slack reports `not_in_channel`, `invalid_blocks`, ... */
  | { readonly type: 'error'; readonly error: string }
  | { readonly type: 'rate-limited'; readonly retryAfterSeconds: number }
  | { readonly type: 'http'; readonly status: number };

export interface FakeSlackApiOptions {
  readonly identity?: Partial<FakeIdentity>;
  readonly botToken?: string;
  readonly appToken?: string;
  /**
   * The bot token's scopes, sent in the `x-oauth-scopes` header of every answer as Slack does. Unset, the
   * header is left out (as a proxy might).
   */
  readonly scopes?: readonly string[];
  /**
   * Seconds of the first ts the workspace hands out (early 2026 unless told): a test whose app clock
   * reads later and that looks messages up by time (`oldest`) starts them at its own time.
   */
  readonly firstTsSeconds?: number;
}

export async function startFakeSlackApi(options: FakeSlackApiOptions = {}): Promise<FakeSlackApi> {
  const identity: FakeIdentity = {
    teamId: 'T0HOLDFAST',
    teamName: 'Holdfast Test',
    botUserId: 'U0HOLDFAST',
    botId: 'B0HOLDFAST',
    botName: 'holdfast',
    ...options.identity,
  };
  const botToken = options.botToken ?? 'xoxb-test-holdfast';
  const appToken = options.appToken ?? 'xapp-test-holdfast';
  const calls: SlackApiCall[] = [];
  const responses: ResponseUrlPost[] = [];
  const workspace = createFakeWorkspace(identity, options.firstTsSeconds);
  const failures = new Map<string, ScriptedFailure[]>();
  const targetedFailures: Array<{
    method: string;
    matches: (params: Record<string, unknown>) => boolean;
    failure: ScriptedFailure;
    left: number;
  }> = [];
  const holds: Array<{
    method: string;
    matches: (call: SlackApiCall) => boolean;
    arrived: (call: SlackApiCall) => void;
    released: Promise<'answer' | 'drop'>;
  }> = [];
  const releases = new Set<() => void>();
  const listeners = new Set<() => void>();

  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  const answer = (method: string, params: Record<string, unknown>, token: string | undefined) => {
    const expected = method === 'apps.connections.open' ? appToken : botToken;
    if (token !== expected) return { ok: false, error: token ? 'invalid_auth' : 'not_authed' };
    return workspace.answer(method, params);
  };

  /** A failure scripted for this very call (by its parameters) first, then the method's queue. */
  const scriptedFailure = (method: string, params: Record<string, unknown>) => {
    const targeted = targetedFailures.find(
      (candidate) => candidate.method === method && candidate.left > 0 && candidate.matches(params),
    );
    if (targeted) {
      targeted.left -= 1;
      return targeted.failure;
    }
    return failures.get(method)?.shift();
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path.startsWith('/respond/')) {
      responses.push({
        name: path.slice('/respond/'.length),
        body: parseWebApiParams(raw, 'application/json'),
      });
      notify();
      sendJson(response, 200, { ok: true });
      return;
    }
    if (!path.startsWith('/api/')) {
      sendJson(response, 404, { ok: false, error: 'not_found' });
      return;
    }
    const method = path.slice('/api/'.length);
    if (options.scopes) response.setHeader('x-oauth-scopes', options.scopes.join(','));
    const params = parseWebApiParams(raw, request.headers['content-type']);
    const authorization = request.headers.authorization;
    const token = authorization?.startsWith('Bearer ')
      ? authorization.slice('Bearer '.length)
      : typeof params.token === 'string'
        ? params.token
        : undefined;
    const record = (status: number, body: Record<string, unknown>) => {
      const call = { method, params, token, status, response: body };
      calls.push(call);
      notify();
      return call;
    };

    const scripted = scriptedFailure(method, params);
    if (scripted?.type === 'rate-limited') {
      record(429, { ok: false, error: 'ratelimited' });
      response.writeHead(429, { 'retry-after': String(scripted.retryAfterSeconds) });
      response.end();
      return;
    }
    if (scripted?.type === 'http') {
      record(scripted.status, {});
      response.writeHead(scripted.status, { 'content-type': 'text/plain' });
      response.end('upstream unavailable');
      return;
    }
    const body =
      scripted?.type === 'error' ? { ok: false, error: scripted.error } : answer(method, params, token);
    const call = record(200, body);
    const hold = holds.findIndex((candidate) => candidate.method === method && candidate.matches(call));
    if (hold >= 0) {
      // Slack did the work (the message is there for anyone reading the thread); the caller has not heard.
      const [held] = holds.splice(hold, 1);
      held?.arrived(call);
      if ((await held?.released) === 'drop') {
        response.destroy();
        return;
      }
    }
    // The caller may be gone by now (killed while it waited): there is nobody left to answer.
    if (!response.destroyed) sendJson(response, 200, body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      sendJson(response, 500, { ok: false, error: String(error) });
    });
  });
  // A kept-alive socket closed for idleness just as the app sends on it fails with a reset, a race of
  // this stand-in's 5 s default: a keep-alive longer than any quiet stretch of a test rules it out.
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  const waitUntil = <T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const found = find();
      if (found !== undefined) {
        resolve(found);
        return;
      }
      const check = () => {
        const match = find();
        if (match === undefined) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(match);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`the fake Slack API never saw ${what} (within ${timeoutMs} ms)`));
      }, timeoutMs);
      listeners.add(check);
    });

  return {
    url: `${origin}/api/`,
    origin,
    botToken,
    appToken,
    identity,
    calls,
    responses,
    succeeded: (method) => calls.filter((call) => call.method === method && call.response.ok === true),
    callsTo: (method) => calls.filter((call) => call.method === method),
    thread: (channel, threadTs) =>
      workspace
        .messages()
        .filter((message) => message.channel === channel && message.threadTs === threadTs)
        .sort((a, b) => a.ts.localeCompare(b.ts)),
    message: (channel, ts) => workspace.message(channel, ts),
    assistantStatus: (channel, threadTs) => workspace.assistantStatus(channel, threadTs),
    responseUrl: (name = 'click') => `${origin}/respond/${name}`,
    failNext(method, failure, times = 1) {
      const queue = failures.get(method) ?? [];
      for (let i = 0; i < times; i += 1) queue.push(failure);
      failures.set(method, queue);
    },
    failMatching(method, matches, failure, times = 1) {
      targetedFailures.push({ method, matches, failure, left: times });
    },
    holdNext(method, matches = () => true) {
      let settle: (how: 'answer' | 'drop') => void = () => {};
      const released = new Promise<'answer' | 'drop'>((resolve) => {
        settle = resolve;
      });
      const release = () => settle('answer');
      releases.add(release);
      let arrived: (call: SlackApiCall) => void = () => {};
      const arrival = new Promise<SlackApiCall>((resolve) => {
        arrived = resolve;
      });
      holds.push({ method, matches, arrived, released });
      return { arrived: arrival, release, drop: () => settle('drop') };
    },
    setUser: (userId, profile) => workspace.setUser(userId, profile),
    setGroupMembers: (groupId, members) => workspace.setGroupMembers(groupId, members),
    setChannel: (channelId, info) => workspace.setChannel(channelId, info),
    addHumanMessage: (message) => workspace.addHumanMessage(message),
    setSocketModeUrl: (url) => workspace.setSocketModeUrl(url),
    waitFor: (method, matches = () => true, timeoutMs = 10_000) =>
      waitUntil(
        () => calls.find((call) => call.method === method && matches(call)),
        `a matching ${method} call`,
        timeoutMs,
      ),
    waitForResponse: (matches = () => true, timeoutMs = 10_000) =>
      waitUntil(() => responses.find(matches), 'a matching response_url post', timeoutMs),
    async close() {
      listeners.clear();
      for (const release of releases) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
