import type { WebClient } from '@slack/web-api';
import type OpenAI from 'openai';
import type { PolicyVocabulary } from '../approvals/policy-names.js';
import type { Config } from '../config.js';
import { BOT_SCOPES } from '../slack/web-api/bot-scopes.js';
import { databaseCheck } from './check-database.js';
import { modelCheck } from './check-model.js';
import { policyCheck } from './check-policy.js';
import { portCheck } from './check-port.js';
import { postgresCheck } from './check-postgres.js';
import { slackAppTokenCheck, slackBotTokenCheck } from './check-slack.js';
import { type StartupCheck, skipped } from './startup-check.js';

export interface StartupCheckDeps {
  /** Every tool that could run (plugins loaded), for the policy's names. */
  readonly vocabulary: PolicyVocabulary;
  /** A Web API client for a token; built at start-up (`startHoldfast`), asking once without retries. */
  readonly slackClient: (token: string) => WebClient;
  /** The configured model's client; absent when a model was supplied instead (tests, the benchmark). */
  readonly openai?: OpenAI;
  /** Reads the database's pages without changing anything (doctor); start-up opens it for real instead. */
  readonly inspectDatabase?: (file: string) => readonly string[];
  /** The local workspace's port when a test overrides PORT. */
  readonly localPort?: number;
  /**
   * Whether to try the app-level token (doctor). Start-up does not: the Socket Mode connection it opens
   * at once is that check, and its failure is worded the same way.
   */
  readonly checkAppToken?: boolean;
  /** Doctor may run beside a holdfast that already listens on PORT. */
  readonly mayBeRunning?: boolean;
}

/**
 * What start-up checks and `holdfast doctor` reports, in this order: the database, the port, the policy,
 * Slack's tokens and scopes, the model. Each applies to the configured mode only.
 */
export function startupChecks(config: Config, deps: StartupCheckDeps): StartupCheck[] {
  const { slack } = config;
  const checks: StartupCheck[] = [
    config.postgres
      ? postgresCheck({ url: config.postgres.url })
      : databaseCheck({ file: config.databasePath, inspect: deps.inspectDatabase }),
  ];
  if (slack.type === 'local') {
    const port = deps.localPort ?? slack.port;
    checks.push(
      portCheck({
        port,
        host: '127.0.0.1',
        purpose: 'the local workspace page',
        mayBeRunning: deps.mayBeRunning,
      }),
    );
  } else if (slack.type === 'http') {
    checks.push(portCheck({ port: slack.port, purpose: 'Slack events', mayBeRunning: deps.mayBeRunning }));
  }
  if (config.healthPort !== undefined && config.healthPort !== 0) {
    checks.push(
      portCheck({
        port: config.healthPort,
        purpose: 'health and metrics',
        variable: 'HOLDFAST_HEALTH_PORT',
        mayBeRunning: deps.mayBeRunning,
      }),
    );
  }
  if (config.policyPath) checks.push(policyCheck({ file: config.policyPath, vocabulary: deps.vocabulary }));
  if (slack.type !== 'local') {
    checks.push(
      slackBotTokenCheck({
        client: deps.slackClient(slack.botToken),
        requiredScopes: BOT_SCOPES,
        apiUrl: slack.apiUrl,
      }),
    );
    if (slack.type === 'socket' && deps.checkAppToken) {
      checks.push(slackAppTokenCheck({ client: deps.slackClient(slack.appToken), apiUrl: slack.apiUrl }));
    }
  }
  if (config.model.type === 'openai' && deps.openai) {
    checks.push(modelCheck({ client: deps.openai, model: config.model.model }));
  } else {
    const reason =
      config.model.type === 'demo'
        ? 'the demo model runs (OPENAI_API_KEY is not set)'
        : 'a model was supplied';
    checks.push({ name: 'model', run: async () => skipped(reason) });
  }
  return checks;
}
