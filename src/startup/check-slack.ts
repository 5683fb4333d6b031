import type { WebClient } from '@slack/web-api';
import { describeError } from '../errors.js';
import { type CheckOutcome, ok, problem, type StartupCheck } from './startup-check.js';

export interface SlackCheckOptions {
  /** A client holding the bot token, built at start-up (`startHoldfast`) with few retries so a wrong URL fails fast. */
  readonly client: WebClient;
  /** The scopes manifest.yml grants. */
  readonly requiredScopes: readonly string[];
  /** `SLACK_API_URL`, when set: named when Slack cannot be reached. */
  readonly apiUrl?: string;
}

/** Slack's answers that mean the token itself is wrong, not that Slack is having a bad day. */
const rejectedToken = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);

const copyBotToken =
  'Copy the Bot User OAuth Token (xoxb-…) again from your app\'s "OAuth & Permissions" page into SLACK_BOT_TOKEN; if the app was removed from the workspace, reinstall it first.';

/**
 * `auth.test` with the bot token: the token is accepted, belongs to a bot, and carries every scope the
 * manifest grants (Slack lists a token's scopes in the `x-oauth-scopes` header of each answer).
 */
export function slackBotTokenCheck(options: SlackCheckOptions): StartupCheck {
  return {
    name: 'slack',
    async run() {
      let identity: Awaited<ReturnType<WebClient['auth']['test']>>;
      try {
        identity = await options.client.auth.test();
      } catch (error) {
        return slackFailure(error, 'SLACK_BOT_TOKEN', copyBotToken, options.apiUrl);
      }
      if (!identity.bot_id || !identity.user_id) {
        return problem('SLACK_BOT_TOKEN is not a bot token (Slack reports no bot user for it)', copyBotToken);
      }
      const who = `@${identity.user ?? identity.user_id} in ${identity.team ?? identity.team_id ?? 'the workspace'}`;
      const scopes = identity.response_metadata?.scopes;
      if (!scopes) return ok(`SLACK_BOT_TOKEN works: ${who} (Slack did not list the token's scopes)`);
      const missing = options.requiredScopes.filter((scope) => !scopes.includes(scope));
      if (missing.length > 0) {
        return problem(
          `the app is missing scopes that manifest.yml grants: ${missing.join(', ')}`,
          'Add them to the app (paste manifest.yml under "App Manifest", or add them under "OAuth & Permissions"), ' +
            'reinstall the app to the workspace, and set SLACK_BOT_TOKEN to the token shown after reinstalling.',
        );
      }
      return ok(`SLACK_BOT_TOKEN works: ${who}, with every scope manifest.yml grants`);
    },
  };
}

const copyAppToken =
  'Create an app-level token with the connections:write scope under "Basic Information" → "App-Level Tokens" and set SLACK_APP_TOKEN to it (xapp-…).';

/**
 * `apps.connections.open` with the app-level token (Socket Mode): the token is accepted and may open
 * connections. The URL it hands out is simply never used. Start-up leaves this to the real connection,
 * whose failure `describeAppTokenFailure` words the same way.
 */
export function slackAppTokenCheck(options: Omit<SlackCheckOptions, 'requiredScopes'>): StartupCheck {
  return {
    name: 'slack-app-token',
    async run() {
      try {
        await options.client.apps.connections.open();
      } catch (error) {
        return describeAppTokenFailure(error, options.apiUrl) ?? problem(describeError(error), copyAppToken);
      }
      return ok('SLACK_APP_TOKEN can open Socket Mode connections');
    },
  };
}

/** A Web API failure of the app-level token as an operator reads it; undefined for any other error. */
export function describeAppTokenFailure(
  error: unknown,
  apiUrl: string | undefined,
): CheckOutcome | undefined {
  if (!String((error as { code?: unknown }).code).startsWith('slack_webapi_')) return undefined;
  if (platformError(error) === 'missing_scope') {
    return problem('SLACK_APP_TOKEN lacks the connections:write scope', copyAppToken);
  }
  return slackFailure(error, 'SLACK_APP_TOKEN', copyAppToken, apiUrl);
}

function slackFailure(
  error: unknown,
  variable: string,
  fix: string,
  apiUrl: string | undefined,
): CheckOutcome {
  const host = apiUrl ? new URL(apiUrl).host : 'slack.com';
  const platform = platformError(error);
  if (platform !== undefined) {
    if (rejectedToken.has(platform)) return problem(`${variable} was rejected by Slack (${platform})`, fix);
    return problem(`Slack refused the check of ${variable} (${platform})`, fix);
  }
  const code = (error as { code?: unknown }).code;
  if (code === 'slack_webapi_request_error') {
    const original = (error as { original?: NodeJS.ErrnoException }).original;
    return problem(
      `could not reach Slack at ${host} (${original?.code ?? describeError(original ?? error)})`,
      `Check the network and proxy settings (HTTPS_PROXY)${apiUrl ? ' and SLACK_API_URL' : ''}.`,
    );
  }
  if (code === 'slack_webapi_http_error') {
    const status = (error as { statusCode?: unknown }).statusCode;
    return problem(
      `Slack at ${host} answered HTTP ${String(status)}`,
      apiUrl ? 'Check SLACK_API_URL (it ends in /api/).' : 'Slack may be having trouble; try again shortly.',
    );
  }
  return problem(`checking ${variable} failed: ${describeError(error)}`, fix);
}

function platformError(error: unknown): string | undefined {
  if ((error as { code?: unknown }).code !== 'slack_webapi_platform_error') return undefined;
  const data = (error as { data?: { error?: unknown } }).data;
  return typeof data?.error === 'string' ? data.error : undefined;
}
