import { effectsOfTools } from '../agent/tool.js';
import type { Policy } from '../approvals/policy.js';
import type { Config } from '../config.js';
import { mcpHealth } from '../mcp/index.js';
import { type OpsEndpoints, opsRoutes } from '../ops/ops-routes.js';
import type { DeliveryPort } from '../outbox/delivery-port.js';
import type { Runtime, RuntimeOptions } from '../runtime/create-runtime.js';
import { createSlackCardLookup } from '../slack/approvals/slack-card-lookup.js';
import { attachSlack } from '../slack/attach-slack.js';
import { type ConnectedSlackMode, createBoltApp, startBoltApp } from '../slack/receiver/create-bolt-app.js';
import { createSlackTurnObserver } from '../slack/turn-view/slack-turn-observer.js';
import { describeAppTokenFailure } from './check-slack.js';
import { connectSlack } from './connect-slack.js';
import type { HoldfastOverrides } from './holdfast.js';
import { openLocalMode } from './open-local-mode.js';
import type { CoreParts } from './prepare-core.js';
import { buildSlackPorts } from './slack-ports.js';
import { StartupCheckError } from './startup-check.js';

/**
 * Where people talk to holdfast: Slack over HTTP, Slack in Socket Mode, or the local workspace (a
 * Slack of its own in the browser, which the Slack front end talks to as it would to Slack). Chosen once,
 * at start-up; the runtime sees only what it hands over.
 */
export interface FrontEnd {
  /** What the runtime is built with: how turns show, who approvers are, who the bot is. */
  readonly forRuntime: Required<Pick<RuntimeOptions, 'observer' | 'directory' | 'cards' | 'botName'>>;
  /** Where the outbox sends what people must see. */
  readonly delivery: DeliveryPort;
  /** The policy as this front end runs it (the local workspace adds its seeded approvers). */
  readonly policy: Policy;
  /** Health, readiness and metrics, served beside the events endpoint and on the ops port. */
  readonly endpoints: OpsEndpoints;
  /** Local mode: the browser page, with the token that signs a browser in. */
  readonly localUrl?: string;
  /** Connects the listeners to the runtime; before `start`. */
  attach(runtime: Runtime): void;
  /** Starts taking requests; `eventsUrl` is where Slack sends them (undefined in Socket Mode). */
  start(): Promise<{ readonly eventsUrl?: string }>;
  /** Takes no more requests (Slack redelivers what it sends meanwhile). */
  stop(): Promise<void>;
  /** Closes what it opened besides (the local workspace). */
  close(): Promise<void>;
}

/** The front end the configuration names. */
export async function openFrontEnd(
  config: Config,
  core: CoreParts,
  overrides: HoldfastOverrides,
): Promise<FrontEnd> {
  if (config.slack.type !== 'local')
    return openSlackFrontEnd(config, config.slack, core, core.policy, overrides);
  const local = await openLocalMode(config, {
    port: overrides.localWorkspace?.port ?? config.slack.port,
    databasePath: overrides.localWorkspace?.databasePath,
    // Made by `prepareCore` whenever the configuration is local.
    credentials: core.local!,
    policy: core.policy,
    logger: core.logger,
    now: core.now,
  });
  try {
    const slack = await openSlackFrontEnd(config, local.mode, core, local.policy, overrides);
    return {
      ...slack,
      localUrl: local.workspace.url,
      close: async () => {
        await slack.close();
        await local.workspace.close();
      },
    };
  } catch (error) {
    await local.workspace.close();
    throw error;
  }
}

async function openSlackFrontEnd(
  config: Config,
  mode: ConnectedSlackMode,
  core: CoreParts,
  policy: Policy,
  overrides: HoldfastOverrides,
): Promise<FrontEnd> {
  const { logger, ops, opened, redact, now } = core;
  const store = opened.store;
  const connection = await connectSlack(mode, logger, ops);
  const { identity } = connection;
  const endpoints = ops.endpoints(
    // Readiness asks with the client that does not retry: a probe wants the answer now.
    () => connection.deliveryClient.auth.test(),
    // An optional MCP server that is down leaves holdfast healthy, but says so.
    config.mcpServers.length > 0 ? () => ({ mcpServers: mcpHealth(core.mcp.states()) }) : undefined,
  );
  const app = createBoltApp({
    mode,
    logger,
    boltLogger: connection.slackLogger,
    now,
    routes: opsRoutes(endpoints),
  });
  const busy = overrides.live?.busy ?? core.pressure.busy;
  const effectsOf = effectsOfTools(core.tools);
  const ports = buildSlackPorts({
    connection,
    config,
    store,
    policy,
    effectsOf,
    logger,
    redact,
    now,
    ops,
    owner: () => core.identity.owner,
    busy,
    live: overrides.live,
    slackClock: overrides.slackClock,
    // Pacing off plans by no limit at all: Slack's 429s alone say when to wait.
    slackLimits: overrides.slackLimits ?? (config.slackPacing ? undefined : {}),
  });
  let started: { stop(): Promise<void> } | undefined;
  return {
    forRuntime: {
      observer: createSlackTurnObserver({
        slack: ports.status.optional,
        certain: ports.status.certain,
        store,
        logger,
        workingAfterMs: overrides.workingAfterMs,
        answerWaitMs: overrides.answerWaitMs,
        busy,
        statusRefreshMs: overrides.statusRefreshMs,
        live: ports.live,
      }),
      directory: ports.slack,
      cards: createSlackCardLookup({ slack: ports.slack, logger }),
      botName: identity.user ?? 'holdfast',
    },
    delivery: ports.delivery,
    policy,
    endpoints,
    attach(runtime) {
      attachSlack({
        app,
        runtime,
        slack: ports.slack,
        intake: ports.intake,
        directory: ports.slack,
        effectsOf,
        botUserId: identity.userId,
        teamId: identity.teamId,
        enterpriseId: identity.enterpriseId,
        logger,
        redact,
        status: ports.status,
        now,
      });
    },
    async start() {
      const listening = await startBoltApp(app, mode).catch((error: unknown) => {
        const outcome = mode.type === 'socket' ? describeAppTokenFailure(error, mode.apiUrl) : undefined;
        throw outcome ? new StartupCheckError([{ name: 'slack-app-token', outcome }]) : error;
      });
      started = listening;
      return { eventsUrl: listening.eventsUrl };
    },
    async stop() {
      await started?.stop();
    },
    async close() {},
  };
}
