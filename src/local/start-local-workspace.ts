import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { z } from 'zod';
import { createDeliverer, formDelivery, jsonDelivery } from './deliver.js';
import { readBody, sendJson } from './http-io.js';
import { type LocalMessage, LocalStore } from './local-store.js';
import { localPage } from './page.js';
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
import { blockActionsBase, eventEnvelope } from './slack-payloads.js';
import { answerWebApi, parseWebApiParams, wireMessage } from './web-api.js';

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
  /** The page to open in a browser. */
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

const userId = z.string().refine((id) => findUser(id)?.id === id, 'a seeded user id');
const channelId = z.string().refine((id) => findChannel(id) !== undefined, 'a seeded channel id');
const uiMessageSchema = z.object({
  user: userId,
  channel: channelId,
  text: z.string().min(1).max(40_000),
  thread_ts: z.string().optional(),
});
const uiClickSchema = z.object({
  user: userId,
  channel: channelId.optional(),
  message_ts: z.string().optional(),
  ephemeral_id: z.number().int().optional(),
  action_id: z.string().min(1),
  value: z.string().default(''),
  block_id: z.string().optional(),
});
const uiHomeSchema = z.object({ user: userId });
const respondSchema = z.object({
  text: z.string().optional(),
  blocks: z.array(z.unknown()).optional(),
  response_type: z.enum(['ephemeral', 'in_channel']).optional(),
});
const commandAckSchema = z.object({ text: z.string().optional(), blocks: z.array(z.unknown()).optional() });

/**
 * A small stand-in for a Slack workspace, for trying holdfast with no Slack account: it answers the Web
 * API on `/api/`, serves a chat page, and turns what people do on the page into signed Events API and
 * interactivity requests to holdfast's real Bolt receiver.
 */
export async function startLocalWorkspace(options: LocalWorkspaceOptions): Promise<LocalWorkspace> {
  const { logger, now } = options;
  const store = new LocalStore(options.databasePath, now);
  const deliver = createDeliverer({
    url: options.deliverTo,
    signingSecret: options.signingSecret,
    now,
    logger,
  });
  const streams = new Set<ServerResponse>();
  let version = 0;
  let origin = '';
  const changed = () => {
    version += 1;
    for (const stream of streams) stream.write(`event: change\ndata: ${version}\n\n`);
  };
  const webApi = { store, origin: () => origin, changed };

  const deliverEvent = (event: Record<string, unknown>) => deliver(jsonDelivery(eventEnvelope(event, now())));

  const responseUrl = (channel: string, user: string, threadTs?: string) =>
    `${origin}/respond/${channel}/${user}${threadTs ? `?thread_ts=${encodeURIComponent(threadTs)}` : ''}`;

  const postUserMessage = async (input: z.output<typeof uiMessageSchema>) => {
    if (input.text.trim().startsWith('/approvals')) {
      const user = findUser(input.user);
      const channel = findChannel(input.channel);
      const ack = await deliver(
        formDelivery({
          token: 'local',
          team_id: localTeam.id,
          team_domain: localTeam.domain,
          channel_id: input.channel,
          channel_name: channel?.name ?? '',
          user_id: input.user,
          user_name: user?.name ?? '',
          command: '/approvals',
          text: input.text.trim().slice('/approvals'.length).trim(),
          api_app_id: localBot.appId,
          response_url: responseUrl(input.channel, input.user, input.thread_ts),
          trigger_id: randomUUID(),
        }),
      );
      // Some commands answer in the acknowledgement itself; Slack shows that privately too.
      const answer = ack?.text ? commandAckSchema.safeParse(safeJson(ack.text)) : undefined;
      if (answer?.success && (answer.data.text || answer.data.blocks)) {
        store.addEphemeral({
          channel: input.channel,
          user: input.user,
          threadTs: input.thread_ts,
          text: answer.data.text ?? '',
          blocks: answer.data.blocks ?? [],
        });
        changed();
      }
      return { ok: true };
    }
    const message = store.addMessage({
      channel: input.channel,
      threadTs: input.thread_ts,
      user: input.user,
      text: input.text,
      blocks: [],
    });
    changed();
    const channel = findChannel(input.channel);
    const event = {
      ...wireMessage(message),
      channel: message.channel,
      channel_type: channel?.type === 'im' ? 'im' : 'channel',
      event_ts: message.ts,
      team: localTeam.id,
    };
    await deliverEvent(event);
    if (channel?.type !== 'im' && input.text.includes(`<@${localBot.userId}>`))
      await deliverEvent({ ...event, type: 'app_mention', channel_type: undefined });
    return { ok: true, ts: message.ts };
  };

  const click = async (input: z.output<typeof uiClickSchema>) => {
    const common = blockActionsBase(input, now());
    if (!input.channel) {
      const view = store.view(input.user);
      await deliver(
        formDelivery({
          payload: JSON.stringify({
            ...common,
            container: { type: 'view', view_id: `V${input.user}` },
            view: { id: `V${input.user}`, team_id: localTeam.id, ...(view as object) },
          }),
        }),
      );
      return { ok: true };
    }
    const message: LocalMessage | undefined = input.message_ts
      ? store.message(input.channel, input.message_ts)
      : undefined;
    const ephemeral = input.ephemeral_id !== undefined;
    const threadTs = message?.threadTs;
    await deliver(
      formDelivery({
        payload: JSON.stringify({
          ...common,
          container: {
            type: 'message',
            message_ts: input.message_ts ?? '',
            channel_id: input.channel,
            is_ephemeral: ephemeral,
          },
          channel: { id: input.channel, name: findChannel(input.channel)?.name },
          ...(message ? { message: { ...wireMessage(message), type: 'message' } } : {}),
          state: { values: {} },
          response_url: responseUrl(input.channel, input.user, threadTs),
        }),
      }),
    );
    return { ok: true };
  };

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
  });

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const route = `${request.method} ${url.pathname}`;
    if (route === 'GET /') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(localPage);
      return;
    }
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
    if (route === 'GET /health') {
      sendJson(response, 200, { ok: true });
      return;
    }
    if (request.method !== 'POST') {
      sendJson(response, 404, { ok: false, error: 'not_found' });
      return;
    }
    const raw = await readBody(request);
    if (url.pathname.startsWith('/api/')) {
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
    if (url.pathname.startsWith('/respond/')) {
      const [channel = '', user = ''] = url.pathname.slice('/respond/'.length).split('/');
      const parsed = respondSchema.safeParse(safeJson(raw));
      if (!parsed.success || !findChannel(channel) || !findUser(user)) {
        sendJson(response, 400, { ok: false, error: 'invalid_response' });
        return;
      }
      const threadTs = url.searchParams.get('thread_ts') ?? undefined;
      const content = { text: parsed.data.text ?? '', blocks: parsed.data.blocks ?? [] };
      if (parsed.data.response_type === 'in_channel')
        store.addMessage({ channel, threadTs, user: localBot.userId, botId: localBot.botId, ...content });
      else store.addEphemeral({ channel, user, threadTs, ...content });
      changed();
      sendJson(response, 200, { ok: true });
      return;
    }
    const body = safeJson(raw);
    const reply = async <Input>(schema: z.ZodType<Input>, work: (input: Input) => Promise<unknown>) => {
      const parsed = schema.safeParse(body);
      if (!parsed.success) {
        sendJson(response, 400, { ok: false, error: 'invalid_request', issues: parsed.error.issues });
        return;
      }
      sendJson(response, 200, await work(parsed.data));
    };
    if (url.pathname === '/ui/message') return reply(uiMessageSchema, postUserMessage);
    if (url.pathname === '/ui/click') return reply(uiClickSchema, click);
    if (url.pathname === '/ui/home')
      return reply(uiHomeSchema, async ({ user }) => {
        await deliverEvent({
          type: 'app_home_opened',
          user,
          channel: findUser(user)?.dm,
          tab: 'home',
          event_ts: String(now() / 1000),
        });
        return { ok: true };
      });
    sendJson(response, 404, { ok: false, error: 'not_found' });
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      logger.error({ err: error }, 'local workspace request failed');
      if (!response.headersSent) sendJson(response, 500, { ok: false, error: 'internal_error' });
      else response.end();
    });
  });
  server.listen(options.port, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/`,
    apiUrl: `${origin}/api/`,
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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
