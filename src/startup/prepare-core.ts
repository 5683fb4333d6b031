import type OpenAI from 'openai';
import type { Logger } from 'pino';
import type { Tool } from '../agent/tool.js';
import { loadPolicyFile } from '../approvals/load-policy.js';
import { emptyPolicy, type Policy } from '../approvals/policy.js';
import { withEnvironmentApprovers } from '../approvals/with-approvers.js';
import type { Config } from '../config.js';
import type { LocalCredentials } from '../local/open-local-workspace.js';
import { connectMcpServers, type McpToolSource } from '../mcp/index.js';
import { createOps, type Ops } from '../ops/create-ops.js';
import { type LoadPressure, watchEventLoop } from '../runtime/load-pressure.js';
import { createProcessIdentity, type ProcessIdentity } from '../runtime/process-identity.js';
import { createRedactor, type Redact, redactingLogger } from '../secrets/index.js';
import { ProcessGroups, policyVocabulary } from '../tools/index.js';
import { toolEnvironment } from '../tools/tool-environment.js';
import { checkClient, createLogger, createOpenAIClient, loadTools, makeWorkdir } from './build-parts.js';
import type { HoldfastOverrides } from './holdfast.js';
import { localCredentialSecrets, makeLocalCredentials } from './local-credentials.js';
import { type OpenedStore, openStore } from './open-store.js';
import { describeReport, requireChecks } from './startup-check.js';
import { startupChecks } from './startup-checks.js';

/** What every front end shares: checked configuration, tools, policy, the store and the process's own parts. */
export interface CoreParts {
  /** The process's logger: every line goes through the redactor. */
  readonly logger: Logger;
  readonly redact: Redact;
  readonly now: () => number;
  /** Local mode's Slack credentials, made before anything could log or post them. */
  readonly local: LocalCredentials | undefined;
  /** The commands tools run are in process groups of their own: holdfast ends them before it exits. */
  readonly processGroups: ProcessGroups;
  readonly mcp: McpToolSource;
  readonly tools: readonly Tool[];
  readonly openai: OpenAI | undefined;
  readonly policy: Policy;
  readonly opened: OpenedStore;
  /** Decisions, tools, the model and Slack calls are counted and logged by wrapping them here, once. */
  readonly ops: Ops;
  /** Who this process is in leases and on the live messages it opens. */
  readonly identity: ProcessIdentity;
  /** How far behind the event loop is: turn concurrency and status decoration yield to it. */
  readonly pressure: LoadPressure & { close(): void };
  /** Closes what this made (the store, the MCP servers, the loop watch). */
  close(): Promise<void>;
}

/**
 * Everything before a front end: every mistake a first install can make is found here, before anything
 * listens or writes, and reported together (one line each, naming the variable to change).
 */
export async function prepareCore(config: Config, overrides: HoldfastOverrides): Promise<CoreParts> {
  const local = makeLocalCredentials(config.slack);
  const { redact } = createRedactor({ secrets: [...config.secrets, ...localCredentialSecrets(local)] });
  // Whoever built the logger (tests and the benchmark pass theirs), its lines are redacted.
  const logger = redactingLogger(overrides.logger ?? createLogger(config), redact);
  const now = overrides.now ?? Date.now;
  const processGroups = new ProcessGroups();
  // MCP servers start first: their tools are named in the policy like any other, and a server that
  // cannot start stops start-up here, naming itself.
  const mcp = await connectMcpServers(config.mcpServers, {
    logger,
    redact,
    baseEnv: toolEnvironment(config.toolEnv),
  });
  try {
    const tools = await loadTools(config, [...mcp.tools(), ...(overrides.tools ?? [])], processGroups);
    const openai = overrides.model ? undefined : createOpenAIClient(config);
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
    const ops = createOps({
      registry: overrides.metricsRegistry,
      store: opened.store,
      logger,
      now,
      auditLog: config.auditLog,
      metricsToken: config.metricsToken,
    });
    const pressure = watchEventLoop();
    return {
      logger,
      redact,
      now,
      local,
      processGroups,
      mcp,
      tools,
      openai,
      policy,
      opened: { ...opened, store: ops.store },
      ops,
      identity: overrides.identity ?? createProcessIdentity(),
      pressure,
      async close() {
        pressure.close();
        await ops.store.close();
        await mcp.close();
      },
    };
  } catch (error) {
    await mcp.close();
    throw error;
  }
}
