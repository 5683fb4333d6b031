import { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { ConfigError } from '../errors.js';
import type { Ops } from '../ops/create-ops.js';
import { boltLogger } from '../slack/bolt-logger.js';
import type { ConnectedSlackMode } from '../slack/create-bolt-app.js';

export interface SlackConnection {
  /** For listeners and the thread status: retries with backoff, as Bolt's own client does. */
  readonly client: WebClient;
  /** For the outbox, which retries on its own schedule (see below). */
  readonly deliveryClient: WebClient;
  readonly slackLogger: ReturnType<typeof boltLogger>;
  readonly identity: {
    readonly userId: string;
    readonly user?: string;
    readonly teamId?: string;
    readonly enterpriseId?: string;
  };
}

/** The Web API clients the app talks to Slack with, and who the bot is (`auth.test`). */
export async function connectSlack(
  mode: ConnectedSlackMode,
  logger: Logger,
  ops: Ops,
): Promise<SlackConnection> {
  const slackLogger = boltLogger(logger.child({ component: 'slack' }));
  const client = new WebClient(mode.botToken, {
    slackApiUrl: mode.apiUrl,
    logger: slackLogger,
    retryConfig: ops.slackRetries({ retries: 3, factor: 2, minTimeout: 500, maxTimeout: 5_000 }),
  });
  ops.watchSlackClient(client);
  const identity = await client.auth.test();
  if (!identity.user_id)
    throw new ConfigError('auth.test did not return the bot user id; check SLACK_BOT_TOKEN');
  // The outbox retries on its own schedule: its client neither retries nor sleeps on a 429, and gives
  // up on a request well before a delivery claim (60 s) could lapse with the post still in flight.
  const deliveryClient = new WebClient(mode.botToken, {
    slackApiUrl: mode.apiUrl,
    logger: slackLogger,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: 20_000,
  });
  ops.watchSlackClient(deliveryClient);
  return {
    client,
    deliveryClient,
    slackLogger,
    identity: {
      userId: identity.user_id,
      user: identity.user,
      teamId: identity.team_id,
      enterpriseId: identity.enterprise_id || undefined,
    },
  };
}
