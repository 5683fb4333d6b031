import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readBody, sendJson } from '../../src/local/http-io.js';
import { parseWebApiParams } from '../../src/local/web-api.js';

/**
 * A stand-in for Slack's Web API on 127.0.0.1, for tests that drive the real `WebClient` and Bolt through
 * `SLACK_API_URL`. It answers in Slack's response shapes, keeps the messages it was sent (so a test can
 * read a thread the way a person would), records every request, and can be told to fail the next calls
 * of a method with a Slack error, a 429 or a 5xx. Posts to `response_url`s under `/respond/` are recorded
 * too, since Bolt's `respond()` sends them to whatever URL the payload carried.
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
  /** A URL to put in a payload's `response_url`. */
  responseUrl(name?: string): string;
  /** The next `times` calls of `method` fail as described, then the method works again. */
  failNext(method: string, failure: ScriptedFailure, times?: number): void;
  setUser(userId: string, profile: { name: string; realName?: string; displayName?: string }): void;
  setGroupMembers(groupId: string, members: readonly string[]): void;
  setChannel(channelId: string, info: FakeChannel): void;
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

export interface FakeIdentity {
  readonly teamId: string;
  /** Set for an installation inside an Enterprise Grid organisation. */
  readonly enterpriseId?: string;
  readonly teamName: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly botName: string;
}

export interface FakeChannel {
  readonly name: string;
  readonly isPrivate?: boolean;
  /** A direct message or a group DM; a channel otherwise. */
  readonly kind?: 'channel' | 'im' | 'mpim';
  /** What `conversations.members` lists, a page at a time. */
  readonly members?: readonly string[];
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

export interface FakeMessage {
  readonly channel: string;
  readonly ts: string;
  readonly threadTs: string | undefined;
  readonly text: string;
  readonly blocks: readonly Record<string, unknown>[];
  readonly updates: number;
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
}

/** JSON-valued form fields the WebClient sends as strings. */

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
  const messages = new Map<string, FakeMessage>();
  const failures = new Map<string, ScriptedFailure[]>();
  const users = new Map<string, { name: string; realName?: string; displayName?: string }>();
  const groups = new Map<string, readonly string[]>();
  const channels = new Map<string, FakeChannel>();
  const listeners = new Set<() => void>();
  let socketModeUrl: string | undefined;
  let tsCounter = 0;

  // Slack's ts values are unique per channel and sort by time; a counter keeps them unique and ordered.
  const nextTs = () => {
    tsCounter += 1;
    return `1767225000.${String(tsCounter).padStart(6, '0')}`;
  };
  const key = (channel: string, ts: string) => `${channel}/${ts}`;
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };

  const answer = (method: string, params: Record<string, unknown>, token: string | undefined) => {
    const expected = method === 'apps.connections.open' ? appToken : botToken;
    if (token !== expected) return { ok: false, error: token ? 'invalid_auth' : 'not_authed' };
    return respondTo(method, params);
  };

  const respondTo = (method: string, params: Record<string, unknown>): Record<string, unknown> => {
    const text = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
    const channel = text('channel') ?? text('channel_id') ?? '';
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://holdfast-test.slack.com/',
          team: identity.teamName,
          user: identity.botName,
          team_id: identity.teamId,
          user_id: identity.botUserId,
          bot_id: identity.botId,
          ...(identity.enterpriseId ? { enterprise_id: identity.enterpriseId } : {}),
          is_enterprise_install: false,
        };
      case 'chat.postMessage': {
        if (!text('text') && params.blocks === undefined) return { ok: false, error: 'no_text' };
        const ts = nextTs();
        const message: FakeMessage = {
          channel,
          ts,
          threadTs: text('thread_ts'),
          text: text('text') ?? '',
          blocks: blocksOf(params),
          updates: 0,
        };
        messages.set(key(channel, ts), message);
        return { ok: true, channel, ts, message: wireMessage(message, identity) };
      }
      case 'chat.update': {
        const ts = text('ts') ?? '';
        const existing = messages.get(key(channel, ts));
        if (!existing) return { ok: false, error: 'message_not_found' };
        const updated: FakeMessage = {
          ...existing,
          text: text('text') ?? existing.text,
          blocks: params.blocks === undefined ? existing.blocks : blocksOf(params),
          updates: existing.updates + 1,
        };
        messages.set(key(channel, ts), updated);
        return { ok: true, channel, ts, text: updated.text, message: wireMessage(updated, identity) };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: nextTs() };
      case 'chat.getPermalink':
        return {
          ok: true,
          channel,
          permalink: `https://holdfast-test.slack.com/archives/${channel}/p${(text('message_ts') ?? '').replace('.', '')}`,
        };
      case 'reactions.add':
      case 'reactions.remove':
      case 'assistant.threads.setStatus':
        return { ok: true };
      case 'users.info': {
        const id = text('user') ?? '';
        const user = users.get(id);
        if (!user) return { ok: false, error: 'user_not_found' };
        return {
          ok: true,
          user: {
            id,
            team_id: identity.teamId,
            name: user.name,
            real_name: user.realName ?? user.name,
            is_bot: false,
            profile: {
              display_name: user.displayName ?? user.name,
              real_name: user.realName ?? user.name,
            },
          },
        };
      }
      case 'usergroups.users.list': {
        const members = groups.get(text('usergroup') ?? '');
        return members ? { ok: true, users: [...members] } : { ok: false, error: 'no_such_subteam' };
      }
      case 'conversations.info': {
        const info = channels.get(channel);
        if (!info) return { ok: false, error: 'channel_not_found' };
        const kind = info.kind ?? 'channel';
        return {
          ok: true,
          channel: {
            id: channel,
            name: info.name,
            is_channel: kind === 'channel' && !info.isPrivate,
            is_group: kind === 'channel' && info.isPrivate === true,
            is_im: kind === 'im',
            is_mpim: kind === 'mpim',
            is_private: kind !== 'channel' || (info.isPrivate ?? false),
            is_member: true,
          },
        };
      }
      case 'conversations.members': {
        const info = channels.get(channel);
        if (!info) return { ok: false, error: 'channel_not_found' };
        // Slack pages with an opaque cursor; an offset is opaque enough for a fake.
        const limit = Math.max(1, Math.min(1000, Number(params.limit ?? 100) || 100));
        const offset = Number(text('cursor') ?? 0) || 0;
        const members = info.members ?? [];
        const next = offset + limit < members.length ? String(offset + limit) : '';
        return {
          ok: true,
          members: members.slice(offset, offset + limit),
          response_metadata: { next_cursor: next },
        };
      }
      case 'views.open': {
        const view = params.view as Record<string, unknown> | undefined;
        if (!text('trigger_id')) return { ok: false, error: 'invalid_trigger_id' };
        if (view?.type !== 'modal') return { ok: false, error: 'invalid_arguments' };
        return { ok: true, view: { id: `V0MODAL${nextTs().slice(-6)}`, team_id: identity.teamId, ...view } };
      }
      case 'views.publish': {
        const view = params.view as Record<string, unknown> | undefined;
        if (view?.type !== 'home') return { ok: false, error: 'invalid_arguments' };
        return { ok: true, view: { id: `V${tsCounter}`, team_id: identity.teamId, ...view } };
      }
      case 'apps.connections.open':
        return socketModeUrl ? { ok: true, url: socketModeUrl } : { ok: false, error: 'not_allowed' };
      default:
        return { ok: false, error: 'unknown_method' };
    }
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
      calls.push({ method, params, token, status, response: body });
      notify();
    };

    const scripted = failures.get(method)?.shift();
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
    record(200, body);
    sendJson(response, 200, body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      sendJson(response, 500, { ok: false, error: String(error) });
    });
  });
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
      [...messages.values()]
        .filter((message) => message.channel === channel && message.threadTs === threadTs)
        .sort((a, b) => a.ts.localeCompare(b.ts)),
    message: (channel, ts) => messages.get(key(channel, ts)),
    responseUrl: (name = 'click') => `${origin}/respond/${name}`,
    failNext(method, failure, times = 1) {
      const queue = failures.get(method) ?? [];
      for (let i = 0; i < times; i += 1) queue.push(failure);
      failures.set(method, queue);
    },
    setUser: (userId, profile) => users.set(userId, profile),
    setGroupMembers: (groupId, members) => groups.set(groupId, [...members]),
    setChannel: (channelId, info) => channels.set(channelId, info),
    setSocketModeUrl(url) {
      socketModeUrl = url;
    },
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
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function wireMessage(message: FakeMessage, identity: FakeIdentity): Record<string, unknown> {
  return {
    type: 'message',
    subtype: 'bot_message',
    user: identity.botUserId,
    bot_id: identity.botId,
    text: message.text,
    ts: message.ts,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
  };
}

function blocksOf(params: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(params.blocks) ? (params.blocks as Record<string, unknown>[]) : [];
}
