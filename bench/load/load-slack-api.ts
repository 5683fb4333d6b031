import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBody, sendJson } from '../../src/local/http-io.js';
import { parseWebApiParams } from '../../src/local/web-api.js';
import { createFakeRateLimiter } from '../../test/support/fake-slack-rate-limits.js';
import { createLoadSlackWorkspace, type LoadSlackWorkspaceReport } from './load-slack-workspace.js';
import type { Timeline } from './load-timeline.js';

/**
 * A lean stand-in for Slack's Web API for the load benchmark: every call waits `latencyMs` and is
 * answered in Slack's shapes (see load-slack-workspace.ts). With `rateLimits` it enforces Slack's
 * published per-method limits as the tests' stand-in does (`createFakeRateLimiter`): a call over its
 * method's limit is answered 429 with `Retry-After` and does nothing. It also takes the bench tool's
 * word that it started (`POST /bench/tool-start`), so click → tool start is timed in one place.
 */
export interface LoadSlackApi {
  /** `http://127.0.0.1:<port>/api/`, for `SLACK_API_URL`. */
  readonly url: string;
  readonly origin: string;
  readonly botToken: string;
  readonly botUserId: string;
  readonly teamId: string;
  readonly report: (clicked: (marker: string) => boolean) => LoadSlackReport;
  close(): Promise<void>;
}

export interface PostedCard {
  readonly channel: string;
  readonly ts: string;
  readonly threadTs: string;
  readonly requestId: string;
  readonly blockId: string;
  readonly text: string;
  readonly blocks: readonly unknown[];
  /** The mention it asks about (`t<thread>-<seq>`). */
  readonly marker: string;
}

/** Per method: calls that arrived, those answered 429, and those inside a Retry-After window handed out. */
export interface MethodCalls {
  calls: number;
  limited: number;
  insideRetryAfter: number;
}

export interface LoadSlackReport extends LoadSlackWorkspaceReport {
  readonly calls: Readonly<Record<string, number>>;
  readonly methods: Readonly<Record<string, MethodCalls>>;
  /** Methods this stand-in does not know, so the figures say when holdfast started calling something new. */
  readonly unknownMethods: readonly string[];
}

export interface LoadSlackApiOptions {
  readonly latencyMs: number;
  readonly rateLimits: boolean;
  readonly parseAnswer: (text: string) => { thread: number; seq: number } | undefined;
  readonly onCard: (card: PostedCard) => void;
  readonly onAnswer: (answer: { thread: number; seq: number }) => void;
  readonly timeline: Timeline;
  readonly now: () => number;
}

const botToken = 'xoxb-load-bench';

export async function startLoadSlackApi(options: LoadSlackApiOptions): Promise<LoadSlackApi> {
  const methods: Record<string, MethodCalls> = {};
  const unknownMethods = new Set<string>();
  const limiter = options.rateLimits ? createFakeRateLimiter() : undefined;
  const workspace = createLoadSlackWorkspace(options);
  const counted = (method: string) => {
    methods[method] ??= { calls: 0, limited: 0, insideRetryAfter: 0 };
    return methods[method];
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/bench/tool-start') {
      const { target } = JSON.parse(raw) as { target?: unknown };
      if (typeof target === 'string') options.timeline.mark(target, 'toolStart', options.now());
      sendJson(response, 200, { ok: true });
      return;
    }
    await sleep(options.latencyMs);
    if (path.startsWith('/respond/')) {
      counted('response_url').calls += 1;
      sendJson(response, 200, { ok: true });
      return;
    }
    const method = path.slice('/api/'.length);
    const params = parseWebApiParams(raw, request.headers['content-type']);
    const stats = counted(method);
    stats.calls += 1;
    const channel = typeof params.channel === 'string' ? params.channel : undefined;
    const inside = limiter?.sentInsideRetryAfter.get(method) ?? 0;
    const verdict = limiter?.admit(method, channel, performance.now());
    stats.insideRetryAfter += (limiter?.sentInsideRetryAfter.get(method) ?? 0) - inside;
    if (verdict && !verdict.allowed) {
      stats.limited += 1;
      response.writeHead(429, { 'retry-after': String(verdict.retryAfterSeconds) });
      response.end();
      return;
    }
    const body = workspace.respond(method, params);
    if (body.error === 'unknown_method') unknownMethods.add(method);
    sendJson(response, 200, body);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) =>
      sendJson(response, 500, { ok: false, error: String(error) }),
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/api/`,
    origin,
    botToken,
    botUserId: workspace.botUserId,
    teamId: workspace.teamId,
    report: (clicked) => ({
      ...workspace.report(clicked),
      calls: Object.fromEntries(Object.entries(methods).map(([method, stats]) => [method, stats.calls])),
      methods: structuredClone(methods),
      unknownMethods: [...unknownMethods],
    }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
