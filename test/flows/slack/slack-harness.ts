import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { onTestFinished } from 'vitest';
import type { ChatModel } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import { loadConfig } from '../../../src/config.js';
import { type Holdfast, type HoldfastOverrides, startHoldfast } from '../../../src/main.js';
import {
  type FakeIdentity,
  type FakeSlackApi,
  type FakeSlackApiOptions,
  startFakeSlackApi,
} from '../../support/fake-slack-api.js';
import { postSignedToSlackApp, type SlackRequestBody } from '../../support/sign-slack-request.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestLogger, type TestLogger } from '../../support/test-logger.js';
import { oncallGroup, people, seedWorkspace } from './harness-fixtures.js';
import { createSlackRequests, type SlackRequests } from './slack-requests.js';

export {
  channel,
  countingShellTool,
  mentionEvent,
  oncallGroup,
  people,
  userTs,
} from './harness-fixtures.js';

export interface HarnessOptions {
  readonly model: ChatModel;
  readonly tools?: readonly Tool[];
  readonly env?: Record<string, string>;
  readonly now?: () => number;
  /** The clock Slack's Retry-After pauses are counted by in the app (real time unless given). */
  readonly slackClock?: () => number;
  /** The rate limits the app plans its Slack calls by (see `HoldfastOverrides.slackLimits`). */
  readonly slackLimits?: HoldfastOverrides['slackLimits'];
  /** Who the bot is in the fake workspace (fixtures name their own bot user and team). */
  readonly identity?: Partial<FakeIdentity>;
  /** Outbox timing (a short retry backoff) for the app, and again after every restart. */
  readonly delivery?: HoldfastOverrides['delivery'];
  readonly workingAfterMs?: number;
  readonly answerWaitMs?: number;
  readonly statusRefreshMs?: number;
  /** How long a turn's lease lasts (renewed every third of it): short to see another process's change soon. */
  readonly leaseMs?: number;
  /**
   * Live answers (streams, tasks). Off unless a test asks: a turn that happens to run long on a busy
   * machine would otherwise stream in a test about something else.
   */
  readonly live?: HoldfastOverrides['live'];
  /** Where the fake workspace's ts values start (see `FakeSlackApiOptions.firstTsSeconds`). */
  readonly firstTsSeconds?: number;
  /** How the stand-in Slack behaves: Slack's rate limits enforced, agent sessions refused. */
  readonly slackApi?: Pick<FakeSlackApiOptions, 'rateLimits' | 'agentSessions' | 'now'>;
  /** Runs once the fake API is up and before holdfast starts (e.g. to stand up a Socket Mode server). */
  readonly beforeStart?: (api: FakeSlackApi) => Promise<Record<string, string> | undefined>;
}

/** The app under test, started on the fake Slack API, and the requests people send it. */
export interface SlackHarness extends SlackRequests {
  readonly api: FakeSlackApi;
  readonly signingSecret: string;
  readonly databasePath: string;
  readonly log: TestLogger;
  readonly holdfast: Holdfast;
  readonly eventsUrl: string;
  /** Stops the whole app (its server, runtime and database) and builds a new one on the same file. */
  restart(next: { model: ChatModel; tools?: readonly Tool[] }): Promise<void>;
  /**
   * A second app on the same database file and workspace, as a second process would be (its own lease
   * owner); `post` signs a request to it. Stopped with the test.
   */
  startAnother(next: { model: ChatModel; tools?: readonly Tool[] }): Promise<{
    holdfast: Holdfast;
    post(body: SlackRequestBody): Promise<{ status: number; text: string }>;
  }>;
  stop(): Promise<void>;
  /** Waits until the runtime has nothing queued or running. */
  settle(): Promise<void>;
  /** Resolves once a log line matches (e.g. that an event was handled as a duplicate). */
  waitForLog(matches: (entry: TestLogger['entries'][number]) => boolean, timeoutMs?: number): Promise<void>;
}

export async function startSlackHarness(options: HarnessOptions): Promise<SlackHarness> {
  const dir = tempDir('holdfast-slack-');
  const api = await startFakeSlackApi({
    identity: options.identity,
    firstTsSeconds: options.firstTsSeconds,
    ...options.slackApi,
  });
  onTestFinished(() => api.close());
  seedWorkspace(api);

  const signingSecret = randomBytes(16).toString('hex');
  const databasePath = dir.file('holdfast.db');
  const log = createTestLogger();
  const extraEnv = (await options.beforeStart?.(api)) ?? {};
  const env = {
    SLACK_BOT_TOKEN: api.botToken,
    SLACK_SIGNING_SECRET: signingSecret,
    SLACK_API_URL: api.url,
    PORT: '0',
    HOLDFAST_DB: databasePath,
    HOLDFAST_WORKDIR: dir.file('workspace'),
    HOLDFAST_APPROVERS: people.bob,
    HOLDFAST_APPROVER_GROUPS: oncallGroup,
    // The sweep would race the test's own steps; tests call recovery through a restart instead.
    HOLDFAST_SWEEP_INTERVAL: '1h',
    // Copies in approvers' DMs add posts and rewrites to every approval; the tests about them turn them on.
    HOLDFAST_APPROVER_DMS: '0',
    HOLDFAST_LOG_LEVEL: 'silent',
    // Socket Mode would take 3001 for health and metrics; tests running side by side take any free port.
    HOLDFAST_HEALTH_PORT: '0',
    ...options.env,
    ...extraEnv,
  };
  const config = loadConfig(env, dir.path);

  const start = (
    model: ChatModel,
    tools: readonly Tool[] | undefined,
    logger: Logger,
    identity?: HoldfastOverrides['identity'],
  ) =>
    startHoldfast(config, {
      identity,
      model,
      tools,
      logger,
      now: options.now,
      slackClock: options.slackClock,
      // A stand-in that enforces no limits is planned for as one: no pacing, unless a test asks.
      slackLimits: options.slackLimits ?? (options.slackApi?.rateLimits ? undefined : {}),
      delivery: options.delivery,
      workingAfterMs: options.workingAfterMs,
      answerWaitMs: options.answerWaitMs,
      statusRefreshMs: options.statusRefreshMs,
      leaseMs: options.leaseMs,
      live: options.live ?? { showAfterMs: Number.POSITIVE_INFINITY },
    });

  let holdfast = await start(options.model, options.tools, log.logger);
  let stopped = false;
  onTestFinished(async () => {
    if (!stopped) await holdfast.stop();
  });

  const eventsUrl = () => {
    if (!holdfast.eventsUrl) throw new Error('holdfast is not listening for HTTP events');
    return holdfast.eventsUrl;
  };
  const requests = createSlackRequests({ api, signingSecret, eventsUrl, now: options.now });
  const { nowSeconds } = requests;

  const harness: SlackHarness = {
    api,
    signingSecret,
    databasePath,
    log,
    get holdfast() {
      return holdfast;
    },
    get eventsUrl() {
      return eventsUrl();
    },
    async restart(next) {
      await holdfast.stop();
      holdfast = await start(next.model, next.tools, log.logger);
    },
    async stop() {
      stopped = true;
      await holdfast.stop();
    },
    async startAnother(next) {
      // Another process: one this process cannot see die, as it could not see a process on another host.
      const another = await start(next.model, next.tools, log.logger, {
        owner: `another-process-${randomBytes(4).toString('hex')}`,
        ownerGone: () => false,
      });
      onTestFinished(() => another.stop());
      return {
        holdfast: another,
        post: (body) => {
          if (!another.eventsUrl) throw new Error('the second app is not listening for HTTP events');
          return postSignedToSlackApp(another.eventsUrl, signingSecret, body, {
            timestampSeconds: nowSeconds(),
          });
        },
      };
    },
    ...requests,
    settle: () => holdfast.runtime.idle(),
    waitForLog(matches, timeoutMs = 10_000) {
      return eventually(() => log.entries.some(matches), 'a matching log line', timeoutMs);
    },
  };
  return harness;
}

/** Polls `check` until it holds; for effects that land after Bolt has already answered the request. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export {
  approvalActionBlocks,
  approvalButtons,
  type PostedCard,
  readRows,
  waitForCard,
} from './slack-cards.js';
