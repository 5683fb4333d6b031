import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBody, sendJson } from '../../src/local/http-io.js';
import { parseWebApiParams } from '../../src/local/web-api.js';

/**
 * A lean stand-in for Slack's Web API for the load benchmark: every call waits `latencyMs` and is
 * answered in Slack's shapes, and it keeps only what the benchmark reports on. It tells the driver when
 * an approval card lands (to click it) and when an answer does (turns/s, order). Duplicates are found
 * twice over: by the outbox key each post carries in its metadata, and by the mention an answer names.
 */
export interface LoadSlackApi {
  /** `http://127.0.0.1:<port>/api/`, for `SLACK_API_URL`. */
  readonly url: string;
  readonly origin: string;
  readonly botToken: string;
  readonly botUserId: string;
  readonly teamId: string;
  readonly report: () => LoadSlackReport;
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
}

export interface LoadSlackReport {
  readonly calls: Readonly<Record<string, number>>;
  /** Posts whose outbox key had been posted before. */
  readonly duplicateKeys: number;
  /** Answers to a mention already answered in another message, whatever their key. */
  readonly duplicateAnswers: number;
  /** Cards for a request that already had one. */
  readonly duplicateCards: number;
  /** Private replies (holdfast's refusals, notices to the clicker). */
  readonly ephemerals: number;
  /** Notices that a turn failed, posted in its thread instead of an answer. */
  readonly failureNotices: number;
  /** Methods this stand-in does not know, so the figures say when holdfast started calling something new. */
  readonly unknownMethods: readonly string[];
}

export interface LoadSlackApiOptions {
  readonly latencyMs: number;
  /** Reads `(thread, seq)` from an answer's text, or undefined for any other post. */
  readonly parseAnswer: (text: string) => { thread: number; seq: number } | undefined;
  readonly onCard: (card: PostedCard) => void;
  /** The first answer to each mention, as it arrives. */
  readonly onAnswer: (answer: { thread: number; seq: number }) => void;
}

const botToken = 'xoxb-load-bench';
const botUserId = 'U0LOADBOT';
const teamId = 'T0LOAD';

export async function startLoadSlackApi(options: LoadSlackApiOptions): Promise<LoadSlackApi> {
  const calls: Record<string, number> = {};
  const postedKeys = new Set<string>();
  const carded = new Set<string>();
  const unknownMethods = new Set<string>();
  let duplicateKeys = 0;
  let duplicateAnswers = 0;
  let duplicateCards = 0;
  let ephemerals = 0;
  let failureNotices = 0;
  let tsCounter = 0;
  // Slack's ts values sort by time and are unique per channel; a counter is both.
  const nextTs = () => `1767225000.${String(++tsCounter).padStart(6, '0')}`;

  /** Which message each answer landed in: the same answer again in that message is an edit, not a repeat. */
  const answerMessages = new Map<string, string>();

  const answerIn = (text: string, message: string) => {
    const answer = options.parseAnswer(text);
    if (!answer) return;
    const id = `${answer.thread}#${answer.seq}`;
    const first = answerMessages.get(id);
    if (first !== undefined) {
      if (first !== message) duplicateAnswers += 1;
      return;
    }
    answerMessages.set(id, message);
    options.onAnswer(answer);
  };

  /**
   * A message edited in place: a turn that ran long enough to open a live message ends by replacing it
   * with the answer (`chat.update`), so the answer is counted there too.
   */
  const edited = (params: Record<string, unknown>, channel: string) => {
    const text = typeof params.text === 'string' ? params.text : '';
    answerIn(text, `${channel}:${String(params.ts)}`);
  };

  const posted = (params: Record<string, unknown>, channel: string, ts: string) => {
    const text = typeof params.text === 'string' ? params.text : '';
    const metadata = params.metadata as { event_payload?: { key?: unknown } } | undefined;
    const key = metadata?.event_payload?.key;
    if (typeof key === 'string') {
      if (postedKeys.has(key)) duplicateKeys += 1;
      postedKeys.add(key);
      if (key.startsWith('notice:')) failureNotices += 1;
    }
    const blocks = Array.isArray(params.blocks) ? (params.blocks as unknown[]) : [];
    const card = approvalButtons(blocks);
    if (card) {
      // A request has one card in its thread and a copy in each approver's DM: one per channel is right.
      const where = `${card.requestId} ${channel}`;
      if (carded.has(where)) duplicateCards += 1;
      carded.add(where);
      // The approver clicks the card in the thread; the DM copy is the same request's second card.
      if (channel.startsWith('D')) return;
      const threadTs = typeof params.thread_ts === 'string' ? params.thread_ts : ts;
      options.onCard({ channel, ts, threadTs, text, blocks, ...card });
      return;
    }
    answerIn(text, `${channel}:${ts}`);
  };

  const respond = (method: string, params: Record<string, unknown>): Record<string, unknown> => {
    const channel = typeof params.channel === 'string' ? params.channel : '';
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          team: 'Load',
          user: 'holdfast',
          team_id: teamId,
          user_id: botUserId,
          bot_id: 'B0LOAD',
        };
      case 'chat.postMessage': {
        const ts = nextTs();
        posted(params, channel, ts);
        return { ok: true, channel, ts, message: { type: 'message', ts, text: params.text ?? '' } };
      }
      case 'chat.update':
        edited(params, channel);
        return { ok: true, channel, ts: params.ts, text: params.text ?? '' };
      case 'chat.postEphemeral':
        ephemerals += 1;
        return { ok: true, message_ts: nextTs() };
      case 'reactions.add':
      case 'reactions.remove':
      case 'assistant.threads.setStatus':
        return { ok: true };
      case 'users.info': {
        const id = typeof params.user === 'string' ? params.user : '';
        const name = id.toLowerCase();
        return {
          ok: true,
          user: { id, name, real_name: name, profile: { display_name: name, real_name: name } },
        };
      }
      case 'chat.getPermalink':
        return {
          ok: true,
          permalink: `https://load.slack.com/archives/${channel}/p${String(params.message_ts)}`,
        };
      case 'conversations.open': {
        const users = typeof params.users === 'string' ? params.users : '';
        return { ok: true, channel: { id: `D${users}` } };
      }
      case 'conversations.info':
        return {
          ok: true,
          channel: { id: channel, name: 'load', is_channel: true, is_private: false, is_member: true },
        };
      case 'conversations.replies':
      case 'conversations.history':
        // Nothing to reconcile: this stand-in never loses a post, so a search finds nothing new.
        return { ok: true, messages: [], response_metadata: { next_cursor: '' } };
      default:
        unknownMethods.add(method);
        return { ok: false, error: 'unknown_method' };
    }
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const raw = await readBody(request);
    const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
    await sleep(options.latencyMs);
    if (path.startsWith('/respond/')) {
      calls.response_url = (calls.response_url ?? 0) + 1;
      sendJson(response, 200, { ok: true });
      return;
    }
    const method = path.slice('/api/'.length);
    calls[method] = (calls[method] ?? 0) + 1;
    const params = parseWebApiParams(raw, request.headers['content-type']);
    sendJson(response, 200, respond(method, params));
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
    botUserId,
    teamId,
    report: () => ({
      calls: { ...calls },
      duplicateKeys,
      duplicateAnswers,
      duplicateCards,
      ephemerals,
      failureNotices,
      unknownMethods: [...unknownMethods],
    }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The request id and block id of an approval card's Allow button, or undefined for any other post. */
function approvalButtons(blocks: readonly unknown[]): { requestId: string; blockId: string } | undefined {
  for (const block of blocks) {
    const candidate = block as { type?: unknown; block_id?: unknown; elements?: unknown };
    if (candidate.type !== 'actions' || typeof candidate.block_id !== 'string') continue;
    if (!candidate.block_id.startsWith('holdfast.approval:') || !Array.isArray(candidate.elements)) continue;
    const allow = candidate.elements.find(
      (element: { action_id?: unknown }) => element.action_id === 'holdfast.approval.allow',
    ) as { value?: unknown } | undefined;
    if (typeof allow?.value === 'string') return { requestId: allow.value, blockId: candidate.block_id };
  }
  return undefined;
}
