import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { statusLegend, statusReactions } from '../slack/turn-view/turn-status.js';
import { answerResponseUrl } from './answer-response-url.js';
import { createDeliverer } from './deliver.js';
import { readBody, sendJson, sendRefusal } from './http-io.js';
import { LocalModals } from './local-modals.js';
import { LocalStore } from './local-store.js';
import { loadPageSecret } from './page-secret.js';
import { createRequestGuard, type RequestGuard } from './request-guard.js';
import {
  findChannel,
  findUser,
  localApprovers,
  localBot,
  localChannels,
  localGroups,
  localTeam,
  localUsers,
} from './seed.js';
import { servePage } from './serve-page.js';
import {
  createUiActions,
  safeJson,
  uiClickSchema,
  uiCloseModalSchema,
  uiHomeSchema,
  uiMessageSchema,
  uiSubmitSchema,
} from './ui-actions.js';
import { answerWebApi, parseWebApiParams } from './web-api.js';

export interface LocalWorkspaceOptions {
  /** 0 picks a free port; `url` reports the real one. */
  readonly port: number;
  readonly databasePath: string;
  readonly signingSecret: string;
  readonly botToken: string;
  /** holdfast's Bolt receiver, where events, clicks and commands are POSTed. */
  readonly deliverTo: string;
  readonly modelLabel: string;
  readonly logger: Logger;
  readonly now: () => number;
}

export interface LocalWorkspace {
  /** The page to open in a browser, with the token that signs the browser in. */
  readonly url: string;
  /** The value for the WebClient's `slackApiUrl`. */
  readonly apiUrl: string;
  readonly botUserId?: string;
  readonly teamId?: string;
  /** Seeded people who may approve, for the policy's default approvers. */
  readonly approverUserIds: readonly string[];
  readonly approverGroupIds: readonly string[];
  close(): Promise<void>;
}

/** On every answer: no framing by other sites, no sniffing, and the token in a URL never sent onwards. */
const safetyHeaders = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

/** `data/local-workspace.db` keeps its secret in `data/local-workspace.secret`. */
const secretPathFor = (databasePath: string) =>
  path.join(path.dirname(databasePath), `${path.basename(databasePath, path.extname(databasePath))}.secret`);

/**
 * A small stand-in for a Slack workspace, for trying holdfast with no Slack account: it answers the Web
 * API on `/api/`, serves a chat page, and turns what people do on the page into signed Events API and
 * interactivity requests to holdfast's real Bolt receiver.
 *
 * It can make holdfast run shell commands, so it listens on loopback only and trusts only the page
 * signed in with its secret (see request-guard.ts): never another site, another port or another host
 * name pointed at this address.
 */
export async function startLocalWorkspace(options: LocalWorkspaceOptions): Promise<LocalWorkspace> {
  const { logger, now } = options;
  const store = new LocalStore(options.databasePath, now);
  const secret = loadPageSecret(secretPathFor(options.databasePath));
  const deliver = createDeliverer({
    url: options.deliverTo,
    signingSecret: options.signingSecret,
    now,
    logger,
  });
  const streams = new Set<ServerResponse>();
  let version = 0;
  // All three are set once the port is known, before the first request can arrive. The page is
  // localhost (the printed URL, its cookie and its permalinks); holdfast's server calls 127.0.0.1.
  let pageOrigin = '';
  let serverOrigin = '';
  let guard: RequestGuard | undefined;
  const changed = () => {
    version += 1;
    for (const stream of streams) stream.write(`event: change\ndata: ${version}\n\n`);
  };
  const modals = new LocalModals();
  const webApi = { store, modals, origin: () => pageOrigin, changed };
  const ui = createUiActions({
    store,
    modals,
    deliver,
    changed,
    now,
    // Like Slack's, a response URL is a capability: it carries a key only holdfast's server ever sees.
    responseUrl: (channel, user, threadTs) =>
      `${serverOrigin}/respond/${guard?.responseKey}/${channel}/${user}` +
      (threadTs ? `?thread_ts=${encodeURIComponent(threadTs)}` : ''),
  });

  const snapshot = (viewer: string) => ({
    version,
    modelLabel: options.modelLabel,
    team: localTeam,
    bot: localBot,
    users: localUsers,
    groups: localGroups,
    channels: localChannels.filter((channel) => channel.type === 'channel' || channel.member === viewer),
    messages: store.messages().filter((message) => {
      const channel = findChannel(message.channel);
      return channel?.type === 'channel' || channel?.member === viewer;
    }),
    reactions: store.reactions(),
    ephemerals: store.ephemeralsFor(viewer),
    home: store.view(viewer) ?? null,
    modal: modals.of(viewer) ?? null,
    legend: statusLegend.map((entry) => ({ ...entry, reaction: statusReactions[entry.status] })),
  });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    for (const [name, value] of Object.entries(safetyHeaders)) response.setHeader(name, value);
    if (!guard) throw new Error('request before the local workspace was listening');
    const checks = guard;
    // DNS rebinding: a foreign name resolving to 127.0.0.1 must get nothing, not even the page.
    const host = checks.host(request);
    if (host.type === 'refuse') {
      response.writeHead(host.status, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`${host.message}\n`);
      return;
    }
    const url = new URL(request.url ?? '/', serverOrigin);
    const route = `${request.method} ${url.pathname}`;
    if (route === 'GET /health') {
      sendJson(response, 200, { ok: true });
      return;
    }
    if (route === 'GET /') {
      servePage(request, response, checks, url);
      return;
    }
    if (request.method === 'POST' && url.pathname.startsWith('/api/')) {
      // Authenticated by the bot token, which only holdfast's process holds; a browser never calls it.
      const verdict = checks.serverOnly(request);
      if (verdict.type === 'refuse') return sendRefusal(response, verdict);
      const raw = await readBody(request);
      const params = parseWebApiParams(raw, request.headers['content-type']);
      const authorization = request.headers.authorization;
      const token = authorization?.startsWith('Bearer ')
        ? authorization.slice('Bearer '.length)
        : typeof params.token === 'string'
          ? params.token
          : undefined;
      const method = url.pathname.slice('/api/'.length);
      if (token !== options.botToken) {
        sendJson(response, 200, { ok: false, error: token ? 'invalid_auth' : 'not_authed' });
        return;
      }
      sendJson(response, 200, answerWebApi(webApi, method, params));
      return;
    }
    if (request.method === 'POST' && url.pathname.startsWith('/respond/')) {
      return answerResponseUrl({ store, changed }, request, response, checks, url);
    }

    // Everything below is the page's own: the signed-in tab, from its own origin.
    const verdict = checks.browser(request);
    if (verdict.type === 'refuse') return sendRefusal(response, verdict);
    if (route === 'GET /stream') {
      response.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      response.write(`retry: 1000\nevent: change\ndata: ${version}\n\n`);
      streams.add(response);
      request.on('close', () => streams.delete(response));
      return;
    }
    if (route === 'GET /state') {
      const viewer = findUser(url.searchParams.get('as') ?? '')?.id ?? localUsers[0]!.id;
      sendJson(response, 200, snapshot(viewer));
      return;
    }
    if (request.method !== 'POST' || !url.pathname.startsWith('/ui/')) {
      sendJson(response, 404, { ok: false, error: 'not_found' });
      return;
    }
    // JSON only: a cross-site form or text/plain post is a "simple request" a browser sends unasked.
    const json = checks.json(request);
    if (json.type === 'refuse') return sendRefusal(response, json);
    const body = safeJson(await readBody(request));
    const reply = async <Input>(schema: z.ZodType<Input>, work: (input: Input) => Promise<unknown>) => {
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        sendJson(response, 400, { ok: false, error: 'invalid_request', issues: parsed.error.issues });
        return;
      }
      const answer = await work(parsed.data);
      // A message too long for Slack is refused, in words the page shows as they are.
      const tooLong =
        typeof answer === 'object' && answer !== null && 'error' in answer && answer.error === 'msg_too_long';
      sendJson(response, tooLong ? 400 : 200, answer);
    };
    if (url.pathname === '/ui/message') return reply(uiMessageSchema, ui.postUserMessage);
    if (url.pathname === '/ui/click') return reply(uiClickSchema, ui.click);
    if (url.pathname === '/ui/home') return reply(uiHomeSchema, ui.openHome);
    if (url.pathname === '/ui/submit') return reply(uiSubmitSchema, ui.submitModal);
    if (url.pathname === '/ui/close-modal') return reply(uiCloseModalSchema, ui.closeModal);
    sendJson(response, 404, { ok: false, error: 'not_found' });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error }, 'local workspace request failed');
      if (!response.headersSent) sendJson(response, 500, { ok: false, error: 'internal_error' });
      else response.end();
    });
  });
  // Loopback only: nothing else on the network may reach a page that can run commands here.
  server.listen(options.port, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  serverOrigin = `http://127.0.0.1:${port}`;
  pageOrigin = `http://localhost:${port}`;
  guard = createRequestGuard({ port, secret });

  return {
    url: `${pageOrigin}/?token=${secret}`,
    apiUrl: `${serverOrigin}/api/`,
    botUserId: localBot.userId,
    teamId: localTeam.id,
    approverUserIds: [...localApprovers.users],
    approverGroupIds: [...localApprovers.groups],
    async close() {
      for (const stream of streams) stream.end();
      streams.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      store.close();
    },
  };
}
