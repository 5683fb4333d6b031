import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, sendJson } from '../../src/local/http-io.js';
import { parseWebApiParams } from '../../src/local/web-api.js';
import { createCallLog, type ResponseUrlPost, type SlackApiCall } from './fake-slack-call-log.js';
import { createFaultScript, type HeldCall, type ScriptedFailure } from './fake-slack-faults.js';
import { createFakeRateLimiter, type RateLimit } from './fake-slack-rate-limits.js';
import {
  createFakeWorkspace,
  type FakeChannel,
  type FakeIdentity,
  type FakeMessage,
} from './fake-slack-workspace.js';

export type { ResponseUrlPost, SlackApiCall } from './fake-slack-call-log.js';
export type { HeldCall, ScriptedFailure } from './fake-slack-faults.js';
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
  /** The thread's agent session status (`agents.sessions.setStatus`); undefined when none was set. */
  sessionStatus(channel: string, threadTs: string): string | undefined;
  /** The reactions the bot has on a message now, in the order they were added. */
  reactions(channel: string, ts: string): readonly string[];
  /**
   * Per method, calls that arrived inside a `Retry-After` window this stand-in had handed out (only
   * with `rateLimits`): a client that respects Slack's 429s sends none.
   */
  readonly sentInsideRetryAfter: ReadonlyMap<string, number>;
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

/** The key holdfast's outbox put in a post's metadata (`<outbox key>#<part>`), if any. */
export function deliveryKeyOf(call: Pick<SlackApiCall, 'params'>): string | undefined {
  const metadata = call.params.metadata as { event_payload?: { key?: unknown } } | undefined;
  const key = metadata?.event_payload?.key;
  return typeof key === 'string' ? key : undefined;
}

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
  /**
   * Enforce Slack's published per-method rate limits (`true`: the tiers in fake-slack-rate-limits.ts;
   * or a table of one's own), answering a call over its limit with 429 and `Retry-After`.
   */
  readonly rateLimits?: boolean | Readonly<Record<string, RateLimit>>;
  /** The limiter's clock, in ms (real time unless told). */
  readonly now?: () => number;
  /**
   * Whether the app may use Slack's agent sessions (`agents.sessions.*`); when false Slack answers them
   * `unknown_method`, as for an app not declared an agent. On unless told.
   */
  readonly agentSessions?: boolean;
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
  const log = createCallLog();
  const faults = createFaultScript();
  const workspace = createFakeWorkspace(identity, options.firstTsSeconds);
  const limiter = options.rateLimits
    ? createFakeRateLimiter(options.rateLimits === true ? undefined : options.rateLimits)
    : undefined;
  const clock = options.now ?? (() => performance.now());

  const answer = (method: string, params: Record<string, unknown>, token: string | undefined) => {
    const expected = method === 'apps.connections.open' ? appToken : botToken;
    if (token !== expected) return { ok: false, error: token ? 'invalid_auth' : 'not_authed' };
    if (options.agentSessions === false && method.startsWith('agents.sessions.'))
      return { ok: false, error: 'unknown_method' };
    return workspace.answer(method, params);
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path.startsWith('/respond/')) {
      log.recordResponse({
        name: path.slice('/respond/'.length),
        body: parseWebApiParams(raw, 'application/json'),
      });
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
      log.record(call);
      return call;
    };

    const channel = typeof params.channel === 'string' ? params.channel : undefined;
    const verdict = limiter?.admit(method, channel, clock());
    const scripted =
      verdict && !verdict.allowed
        ? ({ type: 'rate-limited', retryAfterSeconds: verdict.retryAfterSeconds } as const)
        : faults.failureFor(method, params);
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
    const held = faults.takeHold(call);
    if (held) {
      // Slack did the work (the message is there for anyone reading the thread); the caller has not heard.
      if ((await held) === 'drop') {
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

  return {
    url: `${origin}/api/`,
    origin,
    botToken,
    appToken,
    identity,
    calls: log.calls,
    responses: log.responses,
    succeeded: (method) => log.calls.filter((call) => call.method === method && call.response.ok === true),
    callsTo: (method) => log.calls.filter((call) => call.method === method),
    thread: (channel, threadTs) =>
      workspace
        .messages()
        .filter((message) => message.channel === channel && message.threadTs === threadTs)
        .sort((a, b) => a.ts.localeCompare(b.ts)),
    message: (channel, ts) => workspace.message(channel, ts),
    assistantStatus: (channel, threadTs) => workspace.assistantStatus(channel, threadTs),
    sessionStatus: (channel, threadTs) => workspace.sessionStatus(channel, threadTs),
    reactions: (channel, ts) => workspace.reactions(channel, ts),
    sentInsideRetryAfter: limiter?.sentInsideRetryAfter ?? new Map(),
    responseUrl: (name = 'click') => `${origin}/respond/${name}`,
    failNext: faults.failNext,
    failMatching: faults.failMatching,
    holdNext: faults.holdNext,
    setUser: (userId, profile) => workspace.setUser(userId, profile),
    setGroupMembers: (groupId, members) => workspace.setGroupMembers(groupId, members),
    setChannel: (channelId, info) => workspace.setChannel(channelId, info),
    addHumanMessage: (message) => workspace.addHumanMessage(message),
    setSocketModeUrl: (url) => workspace.setSocketModeUrl(url),
    waitFor: log.waitFor,
    waitForResponse: log.waitForResponse,
    async close() {
      log.stopWaiting();
      faults.releaseAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
