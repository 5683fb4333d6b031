import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { onTestFailed, onTestFinished } from 'vitest';
import { freePort } from '../flows/local/holdfast-process.js';
import { type PostedCard, readRows, waitForCard } from '../flows/slack/slack-cards.js';
import {
  type ChatRequest,
  type FakeModelReply,
  type FakeOpenAIServer,
  startFakeOpenAIServer,
} from '../support/fake-openai-server.js';
import { type FakeMessage, type FakeSlackApi, startFakeSlackApi } from '../support/fake-slack-api.js';
import { postSignedToSlackApp } from '../support/sign-slack-request.js';
import { tempDir } from '../support/temp-dir.js';
import { type HoldfastChild, startHoldfastChild } from './holdfast-child.js';

export const people = { alice: 'U0ALICE', bob: 'U0BOB' } as const;
export const channel = 'C0OPS';

/**
 * Everything outside holdfast for the crash suite, in the test process: Slack's Web API, OpenAI, the
 * database file and the work directory. holdfast runs as child processes on that one file; each can be
 * killed and another started in its place.
 */
export interface CrashWorld {
  readonly slack: FakeSlackApi;
  readonly openai: FakeOpenAIServer;
  /** The SQLite file (unused when the world runs on PostgreSQL). */
  readonly databasePath: string;
  readonly workdir: string;
  /** Starts a holdfast process on the world's database file. */
  start(
    name: string,
    env?: Record<string, string>,
    options?: { readonly ownGroup?: boolean },
  ): Promise<HoldfastChild>;
  /** A mention of the bot in a new thread, sent to `child`; returns the thread's ts. */
  mention(child: HoldfastChild, text: string, options?: { ts?: string; eventId?: string }): Promise<string>;
  /** Delivers an event again, as Slack's retry would (to any process behind the URL). */
  redeliver(child: HoldfastChild, threadTs: string, text: string, eventId: string): Promise<number>;
  /** Bob clicks a button of `card`, sent to `child`. */
  click(child: HoldfastChild, card: PostedCard, action?: 'allow' | 'deny'): Promise<number>;
  waitForCard(threadTs: string): Promise<PostedCard>;
  /** The bot's messages in a thread, oldest first. */
  thread(threadTs: string): FakeMessage[];
  /** Approval cards posted in a thread. */
  cards(threadTs: string): FakeMessage[];
  /** Everything else the bot posted in a thread (answers, notices). */
  answers(threadTs: string): FakeMessage[];
  /** Resolves once the thread has `count` answer messages. */
  waitForAnswers(threadTs: string, count?: number, timeoutMs?: number): Promise<FakeMessage[]>;
  /** The lines tools wrote to a marker file in the work directory. */
  markerLines(name: string): string[];
  rows(sql: string, ...params: unknown[]): Array<Record<string, unknown>>;
}

/** A thread's tag (`t7`) as the test wrote it in the mention, so the model can echo it. */
export const tagOf = (text: string) => /\[(t[\w-]+)\]/.exec(text)?.[1] ?? 'untagged';

/** Three messages' worth, under the 20,000 characters an answer is cut at. */
export const longAnswer = (tag: string) =>
  Array.from(
    { length: 55 },
    (_, i) =>
      `Part ${i + 1} of ${tag}: ${'the web tier reports healthy latency and no errors. '.repeat(6).trim()}`,
  ).join('\n\n');

/**
 * The model, as holdfast's transcript drives it: `run: <command>` in the request asks for `run_shell`;
 * once the tool answered, or for anything else, it answers with the thread's tag; `long answer` gets
 * an answer Slack needs several messages for.
 */
export function scriptedReply(request: ChatRequest): FakeModelReply {
  const last = request.messages.at(-1);
  const asked = [...request.messages].reverse().find((message) => message.role === 'user');
  const text = asked?.content ?? '';
  const tag = tagOf(text);
  if (last?.role === 'tool') return { type: 'text', text: `Done with ${tag}.` };
  const command = /run: (.+)$/s.exec(text)?.[1];
  if (command)
    return { type: 'tool-calls', calls: [{ name: 'run_shell', args: { command: command.trim() } }] };
  if (text.includes('long answer')) return { type: 'text', text: longAnswer(tag) };
  return { type: 'text', text: `Answer for ${tag}.` };
}

/** The fake model's request belongs to the thread tagged `tag`. */
export const forThread = (tag: string) => (request: ChatRequest) =>
  request.messages.some((message) => message.role === 'user' && tagOf(message.content ?? '') === tag);

let tsCounter = 0;
/** A ts for a message a person posts (a thread's root). */
export const userTs = () => {
  tsCounter += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(tsCounter).padStart(6, '0')}`;
};

export interface CrashWorldOptions {
  /** HOLDFAST_DB for every process: a PostgreSQL URL; by default a SQLite file in the world's folder. */
  readonly database?: string;
}

export async function startCrashWorld(options: CrashWorldOptions = {}): Promise<CrashWorld> {
  const dir = tempDir('holdfast-crash-');
  const slack = await startFakeSlackApi();
  onTestFinished(() => slack.close());
  slack.setUser(people.alice, { name: 'alice' });
  slack.setUser(people.bob, { name: 'bob' });
  slack.setChannel(channel, { name: 'ops', members: Object.values(people) });
  const openai = await startFakeOpenAIServer({ reply: scriptedReply });
  onTestFinished(() => openai.close());
  const signingSecret = randomBytes(16).toString('hex');
  const databasePath = dir.file('holdfast.db');
  const workdir = dir.file('work');
  const children: HoldfastChild[] = [];
  onTestFinished(async () => {
    for (const child of children) await child.stop();
  });
  // What each process said is the first thing to read when a crash test fails.
  onTestFailed(() => {
    for (const child of children) {
      const tail = child.output().trimEnd().split('\n').slice(-80).join('\n');
      process.stderr.write(`\n--- ${child.name} (pid ${child.pid}), last lines:\n${tail}\n`);
    }
  });

  const send = (child: HoldfastChild, body: Parameters<typeof postSignedToSlackApp>[2], retryNum?: number) =>
    postSignedToSlackApp(child.eventsUrl, signingSecret, body, {
      headers:
        retryNum === undefined
          ? {}
          : { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_timeout' },
    });

  const mentionBody = (ts: string, text: string, eventId: string) => ({
    json: {
      token: 'legacy-verification-token',
      team_id: slack.identity.teamId,
      api_app_id: 'A0HOLDFAST',
      event: {
        type: 'app_mention',
        user: people.alice,
        text: `<@${slack.identity.botUserId}> ${text}`,
        ts,
        channel,
        event_ts: ts,
      },
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: slack.identity.teamId, user_id: slack.identity.botUserId, is_bot: true }],
    },
  });

  // A card is rewritten once decided, so it is known by what it was posted as.
  const cardTs = () =>
    new Set(
      slack
        .succeeded('chat.postMessage')
        .filter((call) => String(call.params.text).startsWith('Approval needed'))
        .map((call) => String(call.response.ts)),
    );
  const thread = (threadTs: string) => slack.thread(channel, threadTs);
  const cards = (threadTs: string) => {
    const posted = cardTs();
    return thread(threadTs).filter((message) => posted.has(message.ts));
  };
  const answers = (threadTs: string) => {
    const posted = cardTs();
    return thread(threadTs).filter((message) => !posted.has(message.ts));
  };

  return {
    slack,
    openai,
    databasePath,
    workdir,
    async start(name, env = {}, startOptions = {}) {
      const child = await startHoldfastChild({
        name,
        ownGroup: startOptions.ownGroup,
        port: await freePort(),
        env: {
          HOME: dir.path,
          SLACK_BOT_TOKEN: slack.botToken,
          SLACK_SIGNING_SECRET: signingSecret,
          SLACK_API_URL: slack.url,
          OPENAI_API_KEY: openai.apiKey,
          OPENAI_BASE_URL: openai.url,
          OPENAI_MAX_RETRIES: '0',
          HOLDFAST_DB: options.database ?? databasePath,
          HOLDFAST_WORKDIR: workdir,
          HOLDFAST_APPROVERS: people.bob,
          HOLDFAST_SHELL_TIMEOUT: '120s',
          HOLDFAST_LOG_LEVEL: 'info',
          // One person (alice) stands in for a channel's worth of people asking at once.
          HOLDFAST_MAX_TURNS_PER_USER: '10000',
          // Answers as whole messages: these suites count posts; live answers have their own flow tests.
          HOLDFAST_LIVE_ANSWERS: 'off',
          // This stand-in enforces no rate limits, and a thread every 400 ms in one channel is more than
          // Slack's one message a second there: these suites are about processes, not Slack's limits.
          HOLDFAST_SLACK_PACING: 'off',
          // Leases and the sweep keep their defaults: the takeover figures are the ones a deployment gets.
          ...env,
        },
      });
      children.push(child);
      return child;
    },
    async mention(child, text, mentionOptions = {}) {
      const ts = mentionOptions.ts ?? userTs();
      const eventId = mentionOptions.eventId ?? `Ev${randomBytes(6).toString('hex').toUpperCase()}`;
      const response = await send(child, mentionBody(ts, text, eventId));
      if (response.status !== 200) throw new Error(`mention refused: ${response.status} ${response.text}`);
      return ts;
    },
    async redeliver(child, threadTs, text, eventId) {
      return (await send(child, mentionBody(threadTs, text, eventId), 1)).status;
    },
    async click(child, card, action = 'allow') {
      const stored = slack.message(card.channel, card.ts);
      const response = await send(child, {
        payload: {
          type: 'block_actions',
          team: { id: slack.identity.teamId, domain: 'holdfast-test' },
          user: { id: people.bob, username: 'bob', name: 'bob', team_id: slack.identity.teamId },
          api_app_id: 'A0HOLDFAST',
          token: 'legacy-verification-token',
          trigger_id: `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
          container: {
            type: 'message',
            message_ts: card.ts,
            channel_id: card.channel,
            is_ephemeral: false,
            thread_ts: card.threadTs,
          },
          channel: { id: card.channel, name: 'ops' },
          message: {
            type: 'message',
            subtype: 'bot_message',
            text: stored?.text ?? '',
            ts: card.ts,
            thread_ts: card.threadTs,
            blocks: stored?.blocks ?? [],
          },
          response_url: slack.responseUrl(`click-${card.requestId}`),
          actions: [
            {
              action_id: `holdfast.approval.${action}`,
              block_id: card.blockId,
              value: card.requestId,
              type: 'button',
              action_ts: `${Math.floor(Date.now() / 1000)}.000100`,
            },
          ],
        },
      });
      return response.status;
    },
    waitForCard: (threadTs) => waitForCard(slack, threadTs),
    thread,
    cards,
    answers,
    async waitForAnswers(threadTs, count = 1, timeoutMs = 30_000) {
      await slack.waitFor('chat.postMessage', () => answers(threadTs).length >= count, timeoutMs);
      return answers(threadTs);
    },
    markerLines(name) {
      const file = `${workdir}/${name}`;
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line !== '');
    },
    rows: (sql, ...params) => readRows(databasePath, sql, ...params),
  };
}

/** Whatever the marker's line says the shell's pid was: the group left running after the kill is ended. */
export function endShellGroupAfterTest(lines: () => string[]): void {
  onTestFinished(() => {
    for (const line of lines()) {
      const pid = Number(line.split(' ')[1]);
      if (!Number.isInteger(pid) || pid <= 1) continue;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}
