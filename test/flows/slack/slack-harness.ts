import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { onTestFinished } from 'vitest';
import { z } from 'zod';
import type { ChatModel } from '../../../src/agent/chat-model.js';
import type { Tool } from '../../../src/agent/tool.js';
import { loadConfig } from '../../../src/config.js';
import { type Holdfast, type HoldfastOverrides, startHoldfast } from '../../../src/main.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { type FakeIdentity, type FakeSlackApi, startFakeSlackApi } from '../../support/fake-slack-api.js';
import {
  postSignedToSlackApp,
  type SignedRequestOptions,
  type SlackRequestBody,
} from '../../support/sign-slack-request.js';
import { tempDir } from '../../support/temp-dir.js';
import { createTestLogger, type TestLogger } from '../../support/test-logger.js';

/** The people in the test workspace. */
export const people = {
  alice: 'U0ALICE',
  bob: 'U0BOB',
  carol: 'U0CAROL',
  mallory: 'U0MALLORY',
} as const;
export const oncallGroup = 'S0ONCALL';
export const channel = 'C0OPS';

/** A tool that needs approval and counts how often it really ran. */
export function countingShellTool(name = 'ops_shell'): { tool: Tool; runs: string[] } {
  const runs: string[] = [];
  const tool = defineTool({
    name,
    description: 'Runs a shell command on the ops host.',
    parameters: z.object({ command: z.string() }),
    permission: (args) => ({ type: 'ask', permissionType: 'shell', summary: `run \`${args.command}\`` }),
    execute: (args) => {
      runs.push(args.command);
      return `ran: ${args.command}`;
    },
  });
  return { tool: tool as Tool, runs };
}

export interface HarnessOptions {
  readonly model: ChatModel;
  readonly tools?: readonly Tool[];
  readonly env?: Record<string, string>;
  readonly now?: () => number;
  /** Who the bot is in the fake workspace (fixtures name their own bot user and team). */
  readonly identity?: Partial<FakeIdentity>;
  /** Outbox timing (a short retry backoff) for the app, and again after every restart. */
  readonly delivery?: HoldfastOverrides['delivery'];
  readonly workingAfterMs?: number;
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
  /** Runs once the fake API is up and before holdfast starts (e.g. to stand up a Socket Mode server). */
  readonly beforeStart?: (api: FakeSlackApi) => Promise<Record<string, string> | undefined>;
}

export interface SlackHarness {
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
  /** An Events API callback around `event`, signed and posted. */
  sendEvent(
    event: Record<string, unknown>,
    options?: { eventId?: string; retryNum?: number } & SignedRequestOptions,
  ): Promise<{ status: number; text: string }>;
  /** A channel post that mentions the bot, delivered as `app_mention`; returns its ts. */
  mention(
    text: string,
    options?: { user?: string; ts?: string; threadTs?: string; channel?: string },
  ): Promise<string>;
  /** A direct message to the bot in `channel` (a `D…` id), delivered as `message`; returns its ts. */
  direct(text: string, options: { user?: string; channel: string }): Promise<string>;
  /** A plain message in a thread, delivered as `message`; returns its ts. */
  reply(threadTs: string, text: string, options?: { user?: string }): Promise<string>;
  /**
   * A signed `block_actions` click on an approval button of a card. The action carries the block id the
   * card's buttons were posted with (`card.blockId`), the way Slack echoes it.
   */
  click(
    action: 'allow' | 'deny' | 'always' | 'edit' | 'view',
    card: { requestId: string; channel: string; ts: string; threadTs?: string; blockId?: string },
    options?: {
      user?: string;
      responseName?: string;
      /**
       * The card in the thread (default), an ephemeral `/approvals` reply, the App Home tab, or a modal
       * holdfast opened (`view`, as `views.open` returned it).
       */
      from?: 'card' | 'ephemeral' | 'home' | 'modal';
      view?: { id: string; private_metadata?: string };
      /** The Enterprise Grid organisation the click comes from. */
      enterpriseId?: string;
    },
  ): Promise<{ status: number; text: string }>;
  /** `/approvals [text]` from `user` in `channelId`. */
  command(
    text: string,
    options?: { user?: string; channel?: string; responseName?: string },
  ): Promise<{
    status: number;
    text: string;
  }>;
  /** Any body, signed (unless told otherwise) at the app's clock and posted to the events endpoint. */
  post(body: SlackRequestBody, options?: SignedRequestOptions): Promise<{ status: number; text: string }>;
  /** Seconds since the epoch by the app's clock: what Slack stamps on a request sent now. */
  nowSeconds(): number;
  /** Waits until the runtime has nothing queued or running. */
  settle(): Promise<void>;
  /** Resolves once a log line matches (e.g. that an event was handled as a duplicate). */
  waitForLog(matches: (entry: TestLogger['entries'][number]) => boolean, timeoutMs?: number): Promise<void>;
}

let tsCounter = 0;
/** Slack-looking ts values for messages people post; unique within a test run. */
export function userTs(): string {
  tsCounter += 1;
  return `1767220000.${String(tsCounter).padStart(6, '0')}`;
}

export async function startSlackHarness(options: HarnessOptions): Promise<SlackHarness> {
  const dir = tempDir('holdfast-slack-');
  const api = await startFakeSlackApi({ identity: options.identity, firstTsSeconds: options.firstTsSeconds });
  onTestFinished(() => api.close());
  api.setUser(people.alice, { name: 'alice' });
  api.setUser(people.bob, { name: 'bob' });
  api.setUser(people.carol, { name: 'carol' });
  api.setUser(people.mallory, { name: 'mallory' });
  api.setGroupMembers(oncallGroup, [people.carol]);
  api.setChannel(channel, { name: 'ops', members: Object.values(people) });

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
      delivery: options.delivery,
      workingAfterMs: options.workingAfterMs,
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
  // Slack and the app agree on the time: requests are stamped by the clock the app was given, which the
  // receiver checks them against.
  const nowSeconds = () => Math.floor((options.now ?? Date.now)() / 1000);
  const post: SlackHarness['post'] = (body, postOptions = {}) =>
    postSignedToSlackApp(eventsUrl(), signingSecret, body, {
      ...postOptions,
      timestampSeconds: postOptions.timestampSeconds ?? nowSeconds(),
    });

  const sendEvent: SlackHarness['sendEvent'] = (event, sendOptions = {}) => {
    const { eventId, retryNum, ...signed } = sendOptions;
    return post(
      {
        json: {
          token: 'legacy-verification-token',
          team_id: api.identity.teamId,
          api_app_id: 'A0HOLDFAST',
          event: { event_ts: event.ts, ...event },
          type: 'event_callback',
          event_id: eventId ?? `Ev${randomBytes(6).toString('hex').toUpperCase()}`,
          event_time: nowSeconds(),
          authorizations: [{ team_id: api.identity.teamId, user_id: api.identity.botUserId, is_bot: true }],
        },
      },
      {
        ...signed,
        headers: {
          ...signed.headers,
          ...(retryNum === undefined
            ? {}
            : { 'x-slack-retry-num': String(retryNum), 'x-slack-retry-reason': 'http_timeout' }),
        },
      },
    );
  };

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
    sendEvent,
    async mention(text, mentionOptions = {}) {
      const ts = mentionOptions.ts ?? userTs();
      const response = await sendEvent({
        type: 'app_mention',
        user: mentionOptions.user ?? people.alice,
        text: `<@${api.identity.botUserId}> ${text}`,
        ts,
        ...(mentionOptions.threadTs ? { thread_ts: mentionOptions.threadTs } : {}),
        channel: mentionOptions.channel ?? channel,
      });
      if (response.status !== 200) throw new Error(`mention refused: ${response.status} ${response.text}`);
      return ts;
    },
    async direct(text, directOptions) {
      const ts = userTs();
      const response = await sendEvent({
        type: 'message',
        user: directOptions.user ?? people.alice,
        text,
        ts,
        channel: directOptions.channel,
        channel_type: 'im',
      });
      if (response.status !== 200) throw new Error(`message refused: ${response.status} ${response.text}`);
      return ts;
    },
    async reply(threadTs, text, replyOptions = {}) {
      const ts = userTs();
      const response = await sendEvent({
        type: 'message',
        user: replyOptions.user ?? people.alice,
        text,
        ts,
        thread_ts: threadTs,
        channel,
        channel_type: 'channel',
      });
      if (response.status !== 200) throw new Error(`reply refused: ${response.status} ${response.text}`);
      return ts;
    },
    click(action, card, clickOptions = {}) {
      const user = clickOptions.user ?? people.bob;
      const from = clickOptions.from ?? 'card';
      const stored = api.message(card.channel, card.ts);
      const modal = clickOptions.view ?? { id: 'V0MODAL' };
      const where =
        from === 'home'
          ? {
              container: { type: 'view', view_id: 'V0HOME' },
              view: { id: 'V0HOME', type: 'home', team_id: api.identity.teamId },
            }
          : from === 'modal'
            ? {
                container: { type: 'view', view_id: modal.id },
                view: {
                  id: modal.id,
                  type: 'modal',
                  team_id: api.identity.teamId,
                  private_metadata: modal.private_metadata ?? '',
                },
              }
            : {
                container: {
                  type: 'message',
                  message_ts: from === 'card' ? card.ts : userTs(),
                  channel_id: card.channel,
                  is_ephemeral: from === 'ephemeral',
                  ...(card.threadTs ? { thread_ts: card.threadTs } : {}),
                },
                channel: { id: card.channel, name: 'ops' },
                message:
                  from === 'card'
                    ? {
                        type: 'message',
                        subtype: 'bot_message',
                        text: stored?.text ?? '',
                        ts: card.ts,
                        ...(card.threadTs ? { thread_ts: card.threadTs } : {}),
                        blocks: stored?.blocks ?? [],
                      }
                    : undefined,
                response_url: api.responseUrl(clickOptions.responseName ?? `click-${user}`),
              };
      const enterpriseId = clickOptions.enterpriseId;
      return post({
        payload: {
          type: 'block_actions',
          enterprise: enterpriseId ? { id: enterpriseId, name: 'Grid' } : null,
          team: {
            id: api.identity.teamId,
            domain: 'holdfast-test',
            ...(enterpriseId ? { enterprise_id: enterpriseId } : {}),
          },
          user: {
            id: user,
            username: user.toLowerCase(),
            name: user.toLowerCase(),
            team_id: api.identity.teamId,
          },
          api_app_id: 'A0HOLDFAST',
          token: 'legacy-verification-token',
          trigger_id: `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
          ...where,
          actions: [
            {
              action_id: `holdfast.approval.${action}`,
              block_id: card.blockId ?? `holdfast.approval:${card.requestId}`,
              value: card.requestId,
              type: 'button',
              action_ts: `${nowSeconds()}.000100`,
            },
          ],
        },
      });
    },
    command(text, commandOptions = {}) {
      const user = commandOptions.user ?? people.bob;
      return post({
        form: {
          token: 'legacy-verification-token',
          team_id: api.identity.teamId,
          team_domain: 'holdfast-test',
          channel_id: commandOptions.channel ?? channel,
          channel_name: 'ops',
          user_id: user,
          user_name: user.toLowerCase(),
          command: '/approvals',
          text,
          api_app_id: 'A0HOLDFAST',
          response_url: api.responseUrl(commandOptions.responseName ?? `command-${user}`),
          trigger_id: `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
        },
      });
    },
    post,
    nowSeconds,
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
