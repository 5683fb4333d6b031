import { mkdirSync } from 'node:fs';
import { WebClient } from '@slack/web-api';
import Database from 'better-sqlite3';
import OpenAI from 'openai';
import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { ChatModel } from '../agent/chat-model.js';
import type { Tool } from '../agent/tool.js';
import type { Config } from '../config.js';
import { ConfigError, describeError } from '../errors.js';
import { createOpenAIChatModel } from '../llm/index.js';
import { createDemoChatModel } from '../local/demo-chat-model.js';
import { demoDeployServices } from '../local/demo-deploy-services.js';
import { boltLogger } from '../slack/web-api/bolt-logger.js';
import { createBuiltinTools, type ProcessGroups } from '../tools/index.js';
import { loadPlugins } from '../tools/load-plugins.js';
import { uniqueTools } from '../tools/unique-tools.js';

// The parts the composition root builds from configuration, one function each, shared by `start` and
// `doctor` so both see the same tools, model client and Slack client.

export interface LoggerOutput {
  /** Whether people read the output (a terminal): pretty lines then, unless HOLDFAST_LOG_FORMAT says. */
  readonly isTty: boolean;
  /** Where lines go; standard output by default. */
  readonly destination?: NodeJS.WritableStream;
}

/**
 * pino, as JSON for a collector or as pretty lines for people (HOLDFAST_LOG_FORMAT, else by whether
 * standard output is a terminal). Pretty printing runs in this thread, so nothing is lost on exit.
 */
export function createLogger(
  config: Config,
  output: LoggerOutput = { isTty: Boolean(process.stdout.isTTY) },
): Logger {
  const options = {
    level: config.logLevel,
    redact: ['*.token', '*.headers.authorization', '*.apiKey', '*.botToken'],
  };
  const format = config.logFormat ?? (output.isTty ? 'pretty' : 'json');
  if (format === 'json') return output.destination ? pino(options, output.destination) : pino(options);
  return pino(
    options,
    pretty({
      destination: output.destination ?? 1,
      colorize: output.isTty,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
      sync: true,
    }),
  );
}

export async function loadTools(
  config: Config,
  extra: readonly Tool[] = [],
  processGroups?: ProcessGroups,
): Promise<Tool[]> {
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
      processGroups,
    }),
    ...(await loadPlugins(config.plugins)),
    ...extra,
  ]);
}

export function createOpenAIClient(config: Config): OpenAI | undefined {
  if (config.model.type !== 'openai') return undefined;
  return new OpenAI({
    apiKey: config.model.apiKey,
    baseURL: config.model.baseUrl,
    timeout: config.model.timeoutMs,
    maxRetries: config.model.maxRetries,
  });
}

export function buildModel(config: Config, client: OpenAI | undefined, logger: Logger): ChatModel {
  if (config.model.type === 'demo' || !client) return createDemoChatModel();
  return createOpenAIChatModel({
    client,
    model: config.model.model,
    logger: logger.child({ component: 'openai' }),
  });
}

/** Start-up checks ask Slack once, without retries: a wrong URL or token is reported in seconds. */
export function checkClient(config: Config, logger: Logger): (token: string) => WebClient {
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
export function inspectDatabaseReadOnly(file: string): string[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.pragma('quick_check(5)') as Array<{ quick_check: string }>;
    return rows.map((row) => row.quick_check).filter((line) => line !== 'ok');
  } finally {
    db.close();
  }
}

export function makeWorkdir(workdir: string): void {
  try {
    mkdirSync(workdir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? describeError(error);
    throw new ConfigError(
      `HOLDFAST_WORKDIR=${workdir} cannot be created (${code}). Create it with write access for the user holdfast runs as, or set HOLDFAST_WORKDIR to a writable folder.`,
    );
  }
}
