import { ConfigError } from './errors.js';

export type SlackMode =
  | {
      readonly type: 'socket';
      readonly botToken: string;
      readonly appToken: string;
      readonly apiUrl?: string;
    }
  | {
      readonly type: 'http';
      readonly botToken: string;
      readonly signingSecret: string;
      readonly port: number;
      readonly apiUrl?: string;
    }
  /** No Slack token: holdfast runs against its own local workspace (src/local). */
  | { readonly type: 'local'; readonly port: number };

/** What each Slack variable's mistake tells the person to do. */
export const slackHints = {
  SLACK_BOT_TOKEN: 'Copy the Bot User OAuth Token from your app\'s "OAuth & Permissions" page.',
  SLACK_APP_TOKEN: 'Create an app-level token with the connections:write scope under "Basic Information".',
  SLACK_SIGNING_SECRET: 'Copy the Signing Secret from your app\'s "Basic Information" page.',
};

/** The Slack variables, parsed, that choose the mode. */
export interface SlackVariables {
  readonly SLACK_BOT_TOKEN?: string | undefined;
  readonly SLACK_APP_TOKEN?: string | undefined;
  readonly SLACK_SIGNING_SECRET?: string | undefined;
  readonly SLACK_API_URL?: string | undefined;
  readonly PORT: number;
}

/** How holdfast reaches Slack, chosen by which tokens are set; none at all is local mode. */
export function slackMode(e: SlackVariables): SlackMode {
  if (!e.SLACK_BOT_TOKEN) {
    if (e.SLACK_APP_TOKEN || e.SLACK_SIGNING_SECRET) {
      throw new ConfigError(
        'SLACK_BOT_TOKEN is missing: SLACK_APP_TOKEN or SLACK_SIGNING_SECRET is set, but holdfast also needs the bot token. ' +
          slackHints.SLACK_BOT_TOKEN,
      );
    }
    return { type: 'local', port: e.PORT };
  }
  if (e.SLACK_APP_TOKEN) {
    return {
      type: 'socket',
      botToken: e.SLACK_BOT_TOKEN,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
    };
  }
  if (e.SLACK_SIGNING_SECRET) {
    return {
      type: 'http',
      botToken: e.SLACK_BOT_TOKEN,
      signingSecret: e.SLACK_SIGNING_SECRET,
      port: e.PORT,
      apiUrl: e.SLACK_API_URL,
    };
  }
  throw new ConfigError(
    'SLACK_BOT_TOKEN is set but neither SLACK_APP_TOKEN (Socket Mode) nor SLACK_SIGNING_SECRET (HTTP mode) is. ' +
      `Set one of them. ${slackHints.SLACK_APP_TOKEN}`,
  );
}
