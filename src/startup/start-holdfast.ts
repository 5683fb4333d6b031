import { contextBudgetFor } from '../agent/model-context.js';
import { effectsOfTools } from '../agent/tool.js';
import { loadPolicyFile } from '../approvals/load-policy.js';
import { emptyPolicy } from '../approvals/policy.js';
import { withEnvironmentApprovers } from '../approvals/with-approvers.js';
import type { Config } from '../config.js';
import type { LocalWorkspace } from '../local/start-local-workspace.js';
import { connectMcpServers, mcpHealth } from '../mcp/index.js';
import { createOps } from '../ops/create-ops.js';
import { opsRoutes, startOpsServer } from '../ops/ops-routes.js';
import { createRuntime } from '../runtime/create-runtime.js';
import { watchEventLoop } from '../runtime/load-pressure.js';
import { createProcessIdentity } from '../runtime/process-identity.js';
import { waitAtMost } from '../runtime/wait-at-most.js';
import { createRedactor, redactingLogger } from '../secrets/index.js';
import { attachSlack } from '../slack/attach-slack.js';
import { type ConnectedSlackMode, createBoltApp, startBoltApp } from '../slack/create-bolt-app.js';
import { createSlackCardLookup } from '../slack/slack-card-lookup.js';
import { createSlackTurnObserver } from '../slack/slack-turn-observer.js';
import { ProcessGroups, policyVocabulary } from '../tools/index.js';
import { toolEnvironment } from '../tools/tool-environment.js';
import {
  buildModel,
  checkClient,
  createLogger,
  createOpenAIClient,
  loadTools,
  makeWorkdir,
} from './build-parts.js';
import { connectSlack } from './connect-slack.js';
import type { Holdfast, HoldfastOverrides } from './holdfast.js';
import { localCredentialSecrets, makeLocalCredentials } from './local-credentials.js';
import { offeredTools } from './offered-tools.js';
import { openLocalMode } from './open-local-mode.js';
import { databaseLabel, openStore } from './open-store.js';
import { buildSlackPorts } from './slack-ports.js';
import { describeReport, requireChecks } from './startup-check.js';
import { startupChecks } from './startup-checks.js';

/** The composition root: every client, database handle and server is built here and passed down. */
export async function startHoldfast(config: Config, overrides: HoldfastOverrides = {}): Promise<Holdfast> {
  // Local mode's Slack credentials are made here, before anything can log or post, so they are redacted
  // like configured ones.
  const local = makeLocalCredentials(config.slack);
  const secrets = [...config.secrets, ...localCredentialSecrets(local)];
  const { redact } = createRedactor({ secrets });
  // Every line goes through the redactor, whoever built the logger (tests and the benchmark pass theirs).
  const logger = redactingLogger(overrides.logger ?? createLogger(config), redact);
  const now = overrides.now ?? Date.now;
  // The commands tools run are in process groups of their own: holdfast ends them before it exits.
  const processGroups = new ProcessGroups();
  // MCP servers start first: their tools are named in the policy like any other, and a server that
  // cannot start stops start-up here, naming itself.
  const mcp = await connectMcpServers(config.mcpServers, {
    logger,
    redact,
    baseEnv: toolEnvironment(config.toolEnv),
  });
  const prepared = await (async () => {
    const tools = await loadTools(config, [...mcp.tools(), ...(overrides.tools ?? [])], processGroups);
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
    const policy = withEnvironmentApprovers(
      config.policyPath ? loadPolicyFile(config.policyPath, vocabulary) : emptyPolicy,
      config,
    );

    makeWorkdir(config.workdir);
    const opened = await openStore(config, { now, logger, clock: overrides.now });
    return { tools, openai, policy, opened };
  })().catch(async (error: unknown) => {
    await mcp.close();
    throw error;
  });
  const { tools, openai, opened } = prepared;
  const effectsOf = effectsOfTools(tools);
  const startMcp = new Set(mcp.tools());
  let policy = prepared.policy;
  // Decisions, tools, the model and Slack calls are counted and logged by wrapping them here, once.
  const ops = createOps({
    registry: overrides.metricsRegistry,
    store: opened.store,
    logger,
    now,
    auditLog: config.auditLog,
    metricsToken: config.metricsToken,
  });
  const store = ops.store;
  const damage = opened.damage;
  const closers: Array<() => Promise<void> | void> = [() => store.close(), () => mcp.close()];

  try {
    const model = ops.model(overrides.model ?? buildModel(config, openai, logger));

    let slackConfig = config.slack;
    let workspace: LocalWorkspace | undefined;
    if (slackConfig.type === 'local') {
      const opened = await openLocalMode(config, {
        port: overrides.localWorkspace?.port ?? slackConfig.port,
        databasePath: overrides.localWorkspace?.databasePath,
        // Set above whenever the configuration is local.
        credentials: local!,
        policy,
        logger,
        now,
      });
      workspace = opened.workspace;
      closers.push(() => opened.workspace.close());
      policy = opened.policy;
      slackConfig = opened.mode;
    }
    const mode: ConnectedSlackMode = slackConfig;

    const connection = await connectSlack(mode, logger, ops);
    const { identity } = connection;
    // Readiness asks with the client that does not retry: a probe wants the answer now.
    const endpoints = ops.endpoints(
      () => connection.deliveryClient.auth.test(),
      // An optional server that is down leaves holdfast healthy, but says so.
      config.mcpServers.length > 0 ? () => ({ mcpServers: mcpHealth(mcp.states()) }) : undefined,
    );
    const app = createBoltApp({
      mode,
      logger,
      boltLogger: connection.slackLogger,
      now,
      routes: opsRoutes(endpoints),
    });

    // Shared by the thread status (which opens live messages) and delivery (whose answers replace them).
    const processIdentity = overrides.identity ?? createProcessIdentity();
    const pressure = watchEventLoop();
    closers.push(() => pressure.close());
    const busy = overrides.live?.busy ?? pressure.busy;
    const { slack, intake, live, delivery, status } = buildSlackPorts({
      connection,
      config,
      store,
      policy,
      effectsOf,
      logger,
      redact,
      now,
      ops,
      owner: () => processIdentity.owner,
      busy,
      live: overrides.live,
      slackClock: overrides.slackClock,
      // Pacing off plans by no limit at all: Slack's 429s alone say when to wait.
      slackLimits: overrides.slackLimits ?? (config.slackPacing ? undefined : {}),
    });
    const runtime = createRuntime({
      observer: createSlackTurnObserver({
        slack: status.optional,
        certain: status.certain,
        store,
        logger,
        workingAfterMs: overrides.workingAfterMs,
        busy,
        statusRefreshMs: overrides.statusRefreshMs,
        live,
      }),
      store,
      model,
      policy,
      tools:
        config.mcpServers.length === 0
          ? ops.tools(tools)
          : offeredTools({
              fixed: tools.filter((tool) => !startMcp.has(tool)),
              mcp,
              observe: ops.tools,
              logger,
            }),
      directory: slack,
      cards: createSlackCardLookup({ slack, logger }),
      logger,
      now,
      botName: identity.user ?? 'holdfast',
      instructions: config.instructions,
      maxConcurrentTurns: config.maxConcurrentTurns,
      pressure,
      // Sized for the configured model, so a long thread is trimmed before the API would refuse it.
      contextTokens: contextBudgetFor(config.model.type === 'openai' ? config.model.model : 'demo', {
        cap: config.contextTokensCap,
      }),
      approvalExpiryMs: config.approvalTtlMs,
      reach: config.reach,
      budget: config.turnBudget,
      admission: config.admission,
      identity: processIdentity,
      leaseMs: overrides.leaseMs,
      delivery: { port: delivery, ...overrides.delivery },
      redact,
      watch: ops.watch,
    });
    // Agents are a cache: the next turn of each thread is built with the servers' tools as they are now.
    mcp.onChange(() => runtime.toolsChanged());
    attachSlack({
      app,
      runtime,
      slack,
      intake,
      directory: slack,
      effectsOf,
      botUserId: identity.userId,
      teamId: identity.teamId,
      enterpriseId: identity.enterpriseId,
      logger,
      redact,
      status,
      now,
    });

    const started = await startBoltApp(app, mode);
    const { eventsUrl } = started;
    const stopApp = () => started.stop();
    closers.unshift(stopApp);
    const opsServer =
      config.healthPort === undefined ? undefined : await startOpsServer(config.healthPort, endpoints);
    if (opsServer) closers.splice(1, 0, () => opsServer.close());

    await runtime.recover({ expiry: 'background' });
    runtime.startSweep(config.sweepIntervalMs);
    ops.auditMirror?.start(config.sweepIntervalMs);
    logger.info(
      { mode: config.slack.type, database: databaseLabel(config), tools: tools.map((tool) => tool.name) },
      'holdfast is running',
    );
    return {
      runtime,
      logger,
      eventsUrl,
      localUrl: workspace?.url,
      damaged: damage.then((error) => error ?? new Promise<Error>(() => undefined)),
      opsUrl: opsServer?.url,
      metrics: ops.registry,
      async stop() {
        // Requests stop first (Slack redelivers what it sent meanwhile), then the turns, then the files.
        await stopApp().catch((error: unknown) =>
          logger.warn({ err: error }, 'could not stop the Slack app'),
        );
        await runtime.shutdown();
        // A command its turn's abort did not end within the grace (or one that ignores SIGTERM) is ended
        // here, while the store is open to take its result: nothing holdfast started outlives it.
        const ended = await processGroups.endAll();
        if (ended > 0) {
          logger.warn({ commands: ended }, 'ended commands still running at shutdown');
          await waitAtMost(runtime.turnsSettled(), 2_000);
        }
        await ops.auditMirror?.stop();
        for (const close of closers) if (close !== stopApp) await close();
        logger.info('holdfast stopped: no new requests, turns drained, database closed');
      },
    };
  } catch (error) {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    throw error;
  }
}
