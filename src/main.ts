import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { App, SocketModeReceiver } from '@slack/bolt';
import { WebClient } from '@slack/web-api';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import pino, { type Logger } from 'pino';
import type { ChatModel } from './agent/chat-model.js';
import type { Tool } from './agent/tool.js';
import { loadPolicyFile } from './approvals/load-policy.js';
import { emptyPolicy } from './approvals/policy.js';
import { withApprovers, withEnvironmentApprovers } from './approvals/with-approvers.js';
import { type Config, loadConfig } from './config.js';
import { ConfigError, describeError } from './errors.js';
import { createOpenAIChatModel } from './llm/index.js';
import { createDemoChatModel } from './local/demo-chat-model.js';
import { demoDeployServices } from './local/demo-deploy-services.js';
import { type LocalWorkspace, startLocalWorkspace } from './local/start-local-workspace.js';
import { Runtime } from './runtime/create-runtime.js';
import type { ProcessIdentity } from './runtime/process-identity.js';
import { createRedactor, redactingLogger } from './secrets/index.js';
import { attachSlack } from './slack/attach-slack.js';
import { boltLogger } from './slack/bolt-logger.js';
import { deferEventAcks } from './slack/defer-event-acks.js';
import { guardSocketMode } from './slack/receiver/guard-socket-mode.js';
import { GuardedHttpReceiver } from './slack/receiver/guarded-http-receiver.js';
import { createSlackDelivery } from './slack/slack-delivery.js';
import { createSlackWebApi } from './slack/slack-web-api.js';
import { listenFailure } from './startup/check-port.js';
import { describeAppTokenFailure } from './startup/check-slack.js';
import { describeStartupFailure } from './startup/describe-startup-failure.js';
import { runDoctor } from './startup/run-doctor.js';
import { describeReport, requireChecks, StartupCheckError } from './startup/startup-check.js';
import { startupChecks } from './startup/startup-checks.js';
import { createSqliteStore, openDatabase } from './store/index.js';
import { createBuiltinTools, policyVocabulary } from './tools/index.js';
import { loadPlugins } from './tools/load-plugins.js';
import { uniqueTools } from './tools/unique-tools.js';

export interface HoldfastOverrides {
  readonly logger?: Logger;
  readonly now?: () => number;
  /** Replaces the configured model (tests, the benchmark). */
  readonly model?: ChatModel;
  /** Extra tools, appended to the built-in and plugin tools. */
  readonly tools?: readonly Tool[];
  /** For the local workspace in tests: its own port and database file. */
  readonly localWorkspace?: { port?: number; databasePath?: string };
  /** Who this process is in leases (tests run two "processes" in one). */
  readonly identity?: ProcessIdentity;
  readonly leaseMs?: number;
  /** Outbox timing (tests shorten the retry backoff). */
  readonly delivery?: { backoffMs?: (attempt: number) => number; claimMs?: number };
  /** How long a turn runs before its message shows it is working (tests make it 0 or short). */
  readonly workingAfterMs?: number;
}

export interface Holdfast {
  readonly runtime: Runtime;
  /** The process's logger, secrets redacted. */
  readonly logger: Logger;
  /** Where Slack (or the local workspace) sends HTTP requests; undefined in Socket Mode. */
  readonly eventsUrl?: string;
  /** Local mode: the browser page, with the token that signs a browser in. */
  readonly localUrl?: string;
  stop(): Promise<void>;
}

/** The composition root: every client, database handle and server is built here and passed down. */
export async function startHoldfast(config: Config, overrides: HoldfastOverrides = {}): Promise<Holdfast> {
  // Local mode's Slack credentials are made here, before anything can log or post, so they are redacted
  // like configured ones.
  const local =
    config.slack.type === 'local'
      ? { signingSecret: randomHex(32), botToken: `xoxb-local-${randomHex(12)}` }
      : undefined;
  const { redact } = createRedactor({
    secrets: [
      ...config.secrets,
      ...(local
        ? [
            { name: 'slack signing secret', value: local.signingSecret },
            { name: 'slack bot token', value: local.botToken },
          ]
        : []),
    ],
  });
  // Every line goes through the redactor, whoever built the logger (tests and the benchmark pass theirs).
  const logger = redactingLogger(overrides.logger ?? createLogger(config), redact);
  const now = overrides.now ?? Date.now;
  const tools = await loadTools(config, overrides.tools);
  const openai = overrides.model ? undefined : createOpenAIClient(config);
  // Every mistake a first install can make is found here, before anything listens or writes, and reported
  // together: one line for each, naming the variable to change.
  const vocabulary = policyVocabulary(tools);
  const checked = await requireChecks(
    startupChecks(config, {
      vocabulary,
      slackClient: checkClient(config, logger),
      openai,
      localPort: overrides.localWorkspace?.port,
    }),
  );
  for (const report of checked.filter((entry) => entry.outcome.type === 'warning'))
    logger.warn({ check: report.name }, describeReport(report));
  let policy = withEnvironmentApprovers(
    config.policyPath ? loadPolicyFile(config.policyPath, vocabulary) : emptyPolicy,
    config,
  );

  mkdirSync(path.dirname(config.databasePath), { recursive: true });
  makeWorkdir(config.workdir);
  const db = openDatabase(config.databasePath, { synchronous: config.synchronous });
  const store = createSqliteStore(db, {
    now,
    onDeferredFailure: (error) => {
      logger.warn({ err: error }, 'could not record delivered messages yet; retrying');
    },
  });
  const closers: Array<() => Promise<void> | void> = [() => store.close()];

  try {
    const model = overrides.model ?? buildModel(config, openai, logger);

    let slackConfig = config.slack;
    let workspace: LocalWorkspace | undefined;
    let eventsPort: number;
    if (slackConfig.type === 'local') {
      eventsPort = await freePort();
      // Set above whenever the configuration is local.
      const { signingSecret, botToken } = local!;
      const port = overrides.localWorkspace?.port ?? slackConfig.port;
      workspace = await startLocalWorkspace({
        port,
        databasePath:
          overrides.localWorkspace?.databasePath ??
          path.join(path.dirname(config.databasePath), 'local-workspace.db'),
        signingSecret,
        botToken,
        deliverTo: `http://127.0.0.1:${eventsPort}/slack/events`,
        modelLabel:
          config.model.type === 'openai'
            ? `OpenAI ${config.model.model}`
            : 'Demo model — scripted, deterministic',
        logger: logger.child({ component: 'local-workspace' }),
        now,
      }).catch((error: unknown) => {
        throw listenFailure(error, { port, purpose: 'the local workspace page' });
      });
      closers.push(() => workspace?.close());
      // The seeded on-call people approve in local mode, so the approval flow can be tried at once.
      policy = withApprovers(policy, workspace.approverUserIds, workspace.approverGroupIds);
      slackConfig = { type: 'http', botToken, signingSecret, port: eventsPort, apiUrl: workspace.apiUrl };
    } else {
      eventsPort = slackConfig.type === 'http' ? slackConfig.port : 0;
    }

    const slackLogger = boltLogger(logger.child({ component: 'slack' }));
    const client = new WebClient(slackConfig.botToken, {
      slackApiUrl: slackConfig.apiUrl,
      logger: slackLogger,
      retryConfig: { retries: 3, factor: 2, minTimeout: 500, maxTimeout: 5_000 },
    });
    const identity = await client.auth.test();
    if (!identity.user_id)
      throw new ConfigError('auth.test did not return the bot user id; check SLACK_BOT_TOKEN');
    const clientOptions = slackConfig.apiUrl ? { slackApiUrl: slackConfig.apiUrl } : undefined;
    const app =
      slackConfig.type === 'socket'
        ? new App({
            token: slackConfig.botToken,
            socketMode: true,
            logger: slackLogger,
            clientOptions,
            receiver: deferEventAcks(
              guardSocketMode(
                new SocketModeReceiver({
                  appToken: slackConfig.appToken,
                  logger: slackLogger,
                  // A copy: the Socket Mode client writes its own retry settings into the options it gets.
                  installerOptions: { clientOptions: { ...clientOptions } },
                }),
                { logger: logger.child({ component: 'slack-receiver' }) },
              ),
            ),
          })
        : new App({
            token: slackConfig.botToken,
            logger: slackLogger,
            clientOptions,
            receiver: deferEventAcks(
              new GuardedHttpReceiver({
                signingSecret: slackConfig.signingSecret,
                now,
                logger: logger.child({ component: 'slack-receiver' }),
                boltLogger: slackLogger,
                customRoutes: [
                  {
                    path: '/health',
                    method: ['GET'],
                    handler: (_request, response) => {
                      response.writeHead(200, { 'content-type': 'application/json' });
                      response.end(JSON.stringify({ ok: true }));
                    },
                  },
                ],
              }),
            ),
          });

    const slack = createSlackWebApi({ client, logger: logger.child({ component: 'slack-api' }), redact });
    // The outbox retries on its own schedule: its client neither retries nor sleeps on a 429, and gives
    // up on a request well before a delivery claim (60 s) could lapse with the post still in flight.
    const deliveryClient = new WebClient(slackConfig.botToken, {
      slackApiUrl: slackConfig.apiUrl,
      logger: slackLogger,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: 20_000,
    });
    const delivery = createSlackDelivery({
      slack: createSlackWebApi({
        client: deliveryClient,
        logger: logger.child({ component: 'slack-delivery' }),
        redact,
      }),
      store,
      policy,
      logger: logger.child({ component: 'slack-delivery' }),
      redact,
      now,
    });
    const runtime = new Runtime({
      store,
      model,
      policy,
      tools,
      directory: slack,
      logger,
      now,
      botName: identity.user ?? 'holdfast',
      instructions: config.instructions,
      maxConcurrentTurns: config.maxConcurrentTurns,
      approvalExpiryMs: config.approvalTtlMs,
      budget: config.turnBudget,
      admission: config.admission,
      identity: overrides.identity,
      leaseMs: overrides.leaseMs,
      delivery: { port: delivery, ...overrides.delivery },
      redact,
    });
    attachSlack({
      app,
      runtime,
      slack,
      directory: slack,
      botUserId: identity.user_id,
      teamId: identity.team_id,
      enterpriseId: identity.enterprise_id || undefined,
      logger,
      redact,
      workingAfterMs: overrides.workingAfterMs,
    });

    let eventsUrl: string | undefined;
    if (slackConfig.type === 'socket') {
      const { apiUrl } = slackConfig;
      await app.start().catch((error: unknown) => {
        const outcome = describeAppTokenFailure(error, apiUrl);
        throw outcome ? new StartupCheckError([{ name: 'slack-app-token', outcome }]) : error;
      });
    } else {
      const server = (await app.start(eventsPort).catch((error: unknown) => {
        throw listenFailure(error, { port: eventsPort, purpose: 'Slack events' });
      })) as import('node:http').Server;
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : eventsPort;
      eventsUrl = `http://127.0.0.1:${port}/slack/events`;
    }
    const stopApp = () => app.stop().then(() => undefined);
    closers.unshift(stopApp);

    await runtime.recover({ expiry: 'background' });
    runtime.startSweep(config.sweepIntervalMs);
    logger.info(
      { mode: config.slack.type, database: config.databasePath, tools: tools.map((tool) => tool.name) },
      'holdfast is running',
    );
    return {
      runtime,
      logger,
      eventsUrl,
      localUrl: workspace?.url,
      async stop() {
        // Requests stop first (Slack redelivers what it sent meanwhile), then the turns, then the files.
        await stopApp().catch((error: unknown) =>
          logger.warn({ err: error }, 'could not stop the Slack app'),
        );
        await runtime.shutdown();
        for (const close of closers) if (close !== stopApp) await close();
        logger.info('holdfast stopped: no new requests, turns drained, database closed');
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    throw error;
  }
}

function createLogger(config: Config): Logger {
  return pino({
    level: config.logLevel,
    redact: ['*.token', '*.headers.authorization', '*.apiKey', '*.botToken'],
  });
}

async function loadTools(config: Config, extra: readonly Tool[] = []): Promise<Tool[]> {
  return uniqueTools([
    ...createBuiltinTools({
      workdir: config.workdir,
      env: config.toolEnv,
      passEnv: config.toolEnvNames,
      shellTimeoutMs: config.shellTimeoutMs,
      httpAllowHosts: [...config.httpAllowHosts],
      httpInternalHosts: [...config.httpInternalHosts],
      sqlUrl: config.sqlUrl,
      holdfastDatabasePath: config.databasePath,
      deployServices: demoDeployServices(config.slack.type, config.deployServices),
    }),
    ...(await loadPlugins(config.plugins)),
    ...extra,
  ]);
}

function createOpenAIClient(config: Config): OpenAI | undefined {
  if (config.model.type !== 'openai') return undefined;
  return new OpenAI({
    apiKey: config.model.apiKey,
    baseURL: config.model.baseUrl,
    timeout: config.model.timeoutMs,
    maxRetries: config.model.maxRetries,
  });
}

function buildModel(config: Config, client: OpenAI | undefined, logger: Logger): ChatModel {
  if (config.model.type === 'demo' || !client) return createDemoChatModel();
  return createOpenAIChatModel({
    client,
    model: config.model.model,
    logger: logger.child({ component: 'openai' }),
  });
}

/** Start-up checks ask Slack once, without retries: a wrong URL or token is reported in seconds. */
function checkClient(config: Config, logger: Logger): (token: string) => WebClient {
  const apiUrl = config.slack.type === 'local' ? undefined : config.slack.apiUrl;
  return (token) =>
    new WebClient(token, {
      slackApiUrl: apiUrl,
      logger: boltLogger(logger.child({ component: 'startup-check' })),
      retryConfig: { retries: 0 },
      timeout: 10_000,
    });
}

/** For doctor: SQLite's own page check on a read-only connection, so nothing is created or migrated. */
function inspectDatabaseReadOnly(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('quick_check(5)') as Array<{ quick_check: string }>;
    return rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
  } finally {
    db.close();
  }
}

function makeWorkdir(workdir: string): void {
  try {
    mkdirSync(workdir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? describeError(error);
    throw new ConfigError(
      `HOLDFAST_WORKDIR=${workdir} cannot be created (${code}). Create it with write access for the user holdfast runs as, or set HOLDFAST_WORKDIR to a writable folder.`,
    );
  }
}

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A failure that escapes every handler is logged and the process keeps serving. That is safe here because
 * no work lives only in memory: every turn, approval and tool call is a row, written before the step that
 * depends on it, and boot recovery and the sweep resume whatever a failed handler left half done. Exiting
 * instead would drop every other thread's request in flight, and under a supervisor that restarts on exit
 * one malformed request repeated would become a crash loop.
 */
export function keepServingAfterEscapedFailures(target: NodeJS.EventEmitter, logger: Logger): void {
  target.on('uncaughtException', (error: unknown) => {
    logger.error({ err: error }, 'uncaught exception; still serving');
  });
  target.on('unhandledRejection', (reason: unknown) => {
    logger.error({ err: reason }, 'unhandled promise rejection; still serving');
  });
}

async function main(): Promise<void> {
  const command = process.argv[2];
  if (command === 'doctor') {
    process.exitCode = await runDoctor({
      loadConfig: () => loadConfig(process.env, process.cwd()),
      checks: async (config) => {
        const logger = pino({ level: config.logLevel === 'debug' ? 'debug' : 'silent' });
        return startupChecks(config, {
          vocabulary: policyVocabulary(await loadTools(config)),
          slackClient: checkClient(config, logger),
          openai: createOpenAIClient(config),
          inspectDatabase: inspectDatabaseReadOnly,
          checkAppToken: true,
          mayBeRunning: true,
        });
      },
      write: (line) => process.stdout.write(`${line}\n`),
    });
    return;
  }
  if (command !== undefined) {
    process.stderr.write(`holdfast: unknown command "${command}". Usage: holdfast [doctor]\n`);
    process.exit(2);
  }
  let holdfast: Holdfast;
  let config: Config | undefined;
  try {
    config = loadConfig(process.env, process.cwd());
    holdfast = await startHoldfast(config);
  } catch (error) {
    const level = config?.logLevel ?? process.env.HOLDFAST_LOG_LEVEL?.trim().toLowerCase();
    const message = describeStartupFailure(error, { debug: level === 'debug' || level === 'trace' });
    // A failing client can put a credential in its message; stderr is a log like any other.
    const { redact } = createRedactor({ secrets: config?.secrets ?? [] });
    process.stderr.write(`holdfast could not start:\n${redact(message)}\n`);
    process.exit(1);
  }
  keepServingAfterEscapedFailures(process, holdfast.logger);
  if (holdfast.localUrl)
    process.stdout.write(
      `\nholdfast local workspace: ${holdfast.localUrl}\n` +
        'Open this URL: its token signs your browser in, so no other web page can post or approve as you.\n\n',
    );
  let stopping = false;
  // The platform's stop signal reaches this process directly (`node dist/main.js`, no npm or tsx in
  // between): requests stop, running turns get their grace period, the database closes, then exit 0.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    holdfast.logger.info({ signal }, 'stopping');
    await holdfast.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
