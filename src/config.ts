import path from 'node:path';
import { z } from 'zod';
import type { ApproverReach } from './approvals/approver-reach.js';
import { type DeployServices, deployServicesHint, parseDeployServices } from './config-deploy-services.js';
import { boolean, duration, integer, list, onOff, optionalText, url } from './config-fields.js';
import { loadMcpServers, type McpServerConfig } from './config-mcp-servers.js';
import { checkToolEnvNames, configuredSecrets, readUtf8, resolveFileVariables } from './config-secrets.js';
import { type SlackMode, slackHints, slackMode } from './config-slack-mode.js';
import { slackToken } from './config-slack-tokens.js';
import { ConfigError } from './errors.js';
import type { ConfiguredSecret } from './secrets/index.js';
import type { SynchronousMode } from './store/open-database.js';
import { isPostgresUrl } from './store/postgres/postgres-url.js';

export type { SlackMode } from './config-slack-mode.js';

export type ModelConfig =
  | {
      readonly type: 'openai';
      readonly apiKey: string;
      readonly baseUrl?: string;
      readonly model: string;
      readonly timeoutMs: number;
      readonly maxRetries: number;
    }
  | { readonly type: 'demo' };

/**
 * The only reader of the environment. Everything else receives a typed `Config`; a bad variable stops
 * start-up with a message naming it and saying what to do.
 */
export interface Config {
  readonly slack: SlackMode;
  readonly model: ModelConfig;
  /**
   * The SQLite file; with PostgreSQL, where the file would be (files kept beside the database, such as the
   * local workspace's, go in its folder).
   */
  readonly databasePath: string;
  readonly synchronous: SynchronousMode;
  /** Set when HOLDFAST_DB is a postgres:// URL: the store is then that server, shared by every replica. */
  readonly postgres?: { readonly url: string; readonly poolSize: number };
  readonly policyPath?: string;
  readonly approvers: { readonly users: readonly string[]; readonly groups: readonly string[] };
  readonly allowSelfApproval: boolean;
  readonly approvalTtlMs: number;
  /** Copies of each request in its approvers' DMs (0 for none), a reminder, an escalation. */
  readonly reach: ApproverReach;
  readonly workdir: string;
  readonly shellTimeoutMs: number;
  readonly httpAllowHosts: readonly string[];
  readonly httpInternalHosts: readonly string[];
  readonly sqlUrl?: string;
  readonly deployServices: DeployServices;
  readonly plugins: readonly string[];
  /** `HOLDFAST_MCP_CONFIG`: the MCP servers whose tools are offered beside the built-ins. */
  readonly mcpServers: readonly McpServerConfig[];
  readonly instructions?: string;
  readonly maxConcurrentTurns: number;
  /** `HOLDFAST_LIVE_ANSWERS`: show answers as they are written (on) or only once complete (off). */
  readonly liveAnswers: boolean;
  /**
   * `HOLDFAST_SLACK_PACING`: plan Slack calls by each method's published rate limit (on), or leave it to
   * Slack's 429s alone (off: an app Slack has granted higher limits, or a stand-in Slack that has none).
   */
  readonly slackPacing: boolean;
  /** `HOLDFAST_CONTEXT_TOKENS`: the most tokens one model call may carry; below the model's window. */
  readonly contextTokensCap?: number;
  /** What one turn may spend (model calls, tool calls) across itself and its nested agents. */
  readonly turnBudget: { readonly modelCalls: number; readonly toolCalls: number };
  /** Unfinished turns one thread and one person may have before new messages are refused. */
  readonly admission: { readonly perThread: number; readonly perUser: number };
  readonly sweepIntervalMs: number;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `pretty` for people, `json` for collectors; unset: pretty on a terminal, JSON otherwise. */
  readonly logFormat?: 'pretty' | 'json';
  /** Mirror each audit event to the log stream as it is recorded (`HOLDFAST_AUDIT_LOG=1`). */
  readonly auditLog: boolean;
  /**
   * The port of the health, readiness and metrics listener (`HOLDFAST_HEALTH_PORT`). Socket Mode uses
   * 3001 when unset; HTTP mode serves them on PORT as well; local mode only when it is set.
   */
  readonly healthPort?: number;
  /** `HOLDFAST_METRICS_TOKEN`: when set, `/metrics` answers only a request bearing it. */
  readonly metricsToken?: string;
  /**
   * The environment tools may pass on (filtered again by each tool's allow-list): without any secret
   * variable, any `*_FILE` path, or any value that holds a configured secret.
   */
  readonly toolEnv: Readonly<Record<string, string | undefined>>;
  /** `HOLDFAST_TOOL_ENV`: variables of `toolEnv` that commands get beyond their allow-list; never secrets. */
  readonly toolEnvNames: readonly string[];
  /** Every secret value holdfast knows of, for the redactor: configured ones and secret-named variables. */
  readonly secrets: readonly ConfiguredSecret[];
}

export interface ConfigSources {
  /** Reads a `*_FILE` variable's file; injected in tests. */
  readonly readFile?: (file: string) => string;
}

const envSchema = z.object({
  SLACK_BOT_TOKEN: optionalText.pipe(slackToken('xoxb-', 'a bot token')),
  SLACK_APP_TOKEN: optionalText.pipe(slackToken('xapp-', 'an app-level token')),
  SLACK_SIGNING_SECRET: optionalText.pipe(
    z
      .string()
      .regex(/^[a-f0-9]{16,}$/i, 'the hex signing secret')
      .optional(),
  ),
  SLACK_API_URL: optionalText.pipe(url.optional()),
  PORT: integer(3000, 0, 65_535),
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText.pipe(url.optional()),
  OPENAI_MODEL: optionalText,
  OPENAI_TIMEOUT: duration('60s'),
  OPENAI_MAX_RETRIES: integer(3, 0, 10),
  HOLDFAST_DB: optionalText,
  HOLDFAST_DB_SYNCHRONOUS: z
    .string()
    .optional()
    .transform((value) => (value ?? 'FULL').trim().toUpperCase() || 'FULL')
    .pipe(z.enum(['OFF', 'NORMAL', 'FULL', 'EXTRA'])),
  HOLDFAST_DB_POOL_SIZE: integer(10, 1, 1_000),
  HOLDFAST_POLICY: optionalText,
  HOLDFAST_APPROVERS: list(
    z.string().regex(/^[UW][A-Z0-9]{2,}$/, 'Slack user ids such as U012ABCDEF'),
    'user ids',
  ),
  HOLDFAST_APPROVER_GROUPS: list(
    z.string().regex(/^S[A-Z0-9]{2,}$/, 'user-group ids such as S012ABCDEF'),
    'group ids',
  ),
  HOLDFAST_ALLOW_SELF_APPROVAL: boolean,
  HOLDFAST_APPROVER_DMS: integer(10, 0, 100),
  HOLDFAST_ESCALATION_GROUP: list(
    z.string().regex(/^[UWS][A-Z0-9]{2,}$/, 'user-group ids (S…) or user ids (U…)'),
    'user-group or user ids',
  ),
  HOLDFAST_APPROVAL_TTL: duration('24h'),
  HOLDFAST_WORKDIR: optionalText,
  HOLDFAST_SHELL_TIMEOUT: duration('60s'),
  HOLDFAST_HTTP_ALLOW_HOSTS: list(z.string().regex(/^(\*\.)?[a-z0-9.-]+(:\d+)?$/i, 'host names'), 'hosts'),
  HOLDFAST_HTTP_INTERNAL_HOSTS: list(
    z.string().regex(/^[a-z0-9.-]+(:\d+)?$/i, 'exact host names (no wildcards)'),
    'hosts',
  ),
  HOLDFAST_SQL_URL: optionalText,
  HOLDFAST_DEPLOY_SERVICES: optionalText,
  HOLDFAST_PLUGINS: list(z.string().min(1), 'module paths'),
  HOLDFAST_MCP_CONFIG: optionalText,
  HOLDFAST_TOOL_ENV: list(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'variable names'), 'variable names'),
  HOLDFAST_INSTRUCTIONS: optionalText,
  HOLDFAST_MAX_CONCURRENT_TURNS: integer(32, 1, 1_024),
  HOLDFAST_LIVE_ANSWERS: onOff('on'),
  HOLDFAST_SLACK_PACING: onOff('on'),
  HOLDFAST_CONTEXT_TOKENS: optionalText.pipe(
    z
      .string()
      .regex(/^\d+$/, 'a whole number of tokens')
      .transform(Number)
      .pipe(z.number().int().min(4_000).max(2_000_000))
      .optional(),
  ),
  HOLDFAST_MAX_MODEL_CALLS: integer(40, 1, 1_000),
  HOLDFAST_MAX_TOOL_CALLS: integer(100, 1, 10_000),
  HOLDFAST_MAX_TURNS_PER_THREAD: integer(5, 1, 1_000),
  HOLDFAST_MAX_TURNS_PER_USER: integer(20, 1, 10_000),
  // Recovery of a dead process's turns and deliveries waits for the next sweep: seconds, not minutes.
  HOLDFAST_SWEEP_INTERVAL: duration('5s'),
  HOLDFAST_LOG_FORMAT: optionalText.pipe(z.enum(['pretty', 'json']).optional()),
  HOLDFAST_AUDIT_LOG: boolean,
  HOLDFAST_HEALTH_PORT: optionalText.pipe(
    z
      .string()
      .regex(/^\d+$/, 'a port number')
      .transform(Number)
      .pipe(z.number().int().min(0).max(65_535))
      .optional(),
  ),
  HOLDFAST_METRICS_TOKEN: optionalText.pipe(
    z.string().min(16, 'at least 16 characters: it guards /metrics on a port Slack can reach').optional(),
  ),
  HOLDFAST_LOG_LEVEL: z
    .string()
    .optional()
    .transform((value) => (value ?? 'info').trim().toLowerCase() || 'info')
    .pipe(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])),
});

const hints: Record<string, string> = {
  ...slackHints,
  HOLDFAST_DEPLOY_SERVICES: deployServicesHint,
};

/** Socket Mode has no HTTP server of its own: health, readiness and metrics get this port. */
const defaultSocketHealthPort = 3001;

export function loadConfig(
  rawEnv: Readonly<Record<string, string | undefined>>,
  cwd: string,
  sources: ConfigSources = {},
): Config {
  const { env, fromFile } = resolveFileVariables(rawEnv, cwd, sources.readFile ?? readUtf8);
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0] ?? 'environment');
      const hint = hints[name];
      const where = fromFile.has(name) ? `${name} (read from ${name}_FILE)` : name;
      return `${where}: expected ${issue.message}${hint ? `. ${hint}` : ''}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${issues.join('\n  ')}`, issues);
  }
  const e = parsed.data;
  const { secrets: envSecrets, toolEnv } = configuredSecrets(env);
  const mcp = loadMcpServers(e.HOLDFAST_MCP_CONFIG, { env, cwd, readFile: sources.readFile ?? readUtf8 });
  const secrets = [
    ...envSecrets,
    ...mcp.secrets.filter((secret) => !envSecrets.some((known) => known.value === secret.value)),
  ];
  const slack = slackMode(e);
  return {
    slack,
    model: e.OPENAI_API_KEY
      ? {
          type: 'openai',
          apiKey: e.OPENAI_API_KEY,
          baseUrl: e.OPENAI_BASE_URL,
          model: e.OPENAI_MODEL ?? 'gpt-4.1-mini',
          timeoutMs: e.OPENAI_TIMEOUT,
          maxRetries: e.OPENAI_MAX_RETRIES,
        }
      : { type: 'demo' },
    databasePath: path.resolve(
      cwd,
      e.HOLDFAST_DB && !isPostgresUrl(e.HOLDFAST_DB) ? e.HOLDFAST_DB : 'data/holdfast.db',
    ),
    synchronous: e.HOLDFAST_DB_SYNCHRONOUS,
    ...(e.HOLDFAST_DB && isPostgresUrl(e.HOLDFAST_DB)
      ? { postgres: { url: e.HOLDFAST_DB, poolSize: e.HOLDFAST_DB_POOL_SIZE } }
      : {}),
    policyPath: e.HOLDFAST_POLICY ? path.resolve(cwd, e.HOLDFAST_POLICY) : undefined,
    approvers: { users: e.HOLDFAST_APPROVERS, groups: e.HOLDFAST_APPROVER_GROUPS },
    allowSelfApproval: e.HOLDFAST_ALLOW_SELF_APPROVAL,
    approvalTtlMs: e.HOLDFAST_APPROVAL_TTL,
    reach: {
      maxCopies: e.HOLDFAST_APPROVER_DMS,
      escalation: {
        users: e.HOLDFAST_ESCALATION_GROUP.filter((id) => !id.startsWith('S')),
        groups: e.HOLDFAST_ESCALATION_GROUP.filter((id) => id.startsWith('S')),
      },
    },
    workdir: path.resolve(cwd, e.HOLDFAST_WORKDIR ?? 'workspace'),
    shellTimeoutMs: e.HOLDFAST_SHELL_TIMEOUT,
    httpAllowHosts: e.HOLDFAST_HTTP_ALLOW_HOSTS,
    httpInternalHosts: e.HOLDFAST_HTTP_INTERNAL_HOSTS,
    sqlUrl: e.HOLDFAST_SQL_URL,
    deployServices: parseDeployServices(e.HOLDFAST_DEPLOY_SERVICES),
    plugins: e.HOLDFAST_PLUGINS.map((plugin) => path.resolve(cwd, plugin)),
    mcpServers: mcp.servers,
    instructions: e.HOLDFAST_INSTRUCTIONS,
    maxConcurrentTurns: e.HOLDFAST_MAX_CONCURRENT_TURNS,
    liveAnswers: e.HOLDFAST_LIVE_ANSWERS === 'on',
    slackPacing: e.HOLDFAST_SLACK_PACING === 'on',
    contextTokensCap: e.HOLDFAST_CONTEXT_TOKENS,
    turnBudget: { modelCalls: e.HOLDFAST_MAX_MODEL_CALLS, toolCalls: e.HOLDFAST_MAX_TOOL_CALLS },
    admission: { perThread: e.HOLDFAST_MAX_TURNS_PER_THREAD, perUser: e.HOLDFAST_MAX_TURNS_PER_USER },
    sweepIntervalMs: e.HOLDFAST_SWEEP_INTERVAL,
    logLevel: e.HOLDFAST_LOG_LEVEL,
    logFormat: e.HOLDFAST_LOG_FORMAT,
    auditLog: e.HOLDFAST_AUDIT_LOG,
    healthPort: e.HOLDFAST_HEALTH_PORT ?? (slack.type === 'socket' ? defaultSocketHealthPort : undefined),
    metricsToken: e.HOLDFAST_METRICS_TOKEN,
    secrets,
    toolEnv,
    toolEnvNames: checkToolEnvNames(e.HOLDFAST_TOOL_ENV, env, secrets),
  };
}
