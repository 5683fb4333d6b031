import { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { ConfigError } from '../errors.js';
import type { Ops } from '../ops/create-ops.js';
import type { ConnectedSlackMode } from '../slack/receiver/create-bolt-app.js';
import { boltLogger } from '../slack/web-api/bolt-logger.js';

export interface SlackConnection {
  /** For listeners and the thread status: retries with backoff (a 429 is left to the port, per method). */
  readonly client: WebClient;
  /** For the outbox, which retries on its own schedule (see below). */
  readonly deliveryClient: WebClient;
  /** For the lookups that make a kept message a turn (see `intakeClient` below). */
  readonly intakeClient: WebClient;
  readonly slackLogger: ReturnType<typeof boltLogger>;
  readonly identity: {
    readonly userId: string;
    readonly user?: string;
    readonly teamId?: string;
    readonly enterpriseId?: string;
  };
}

/** How long one lookup for a kept message may take: a slow Slack holds its thread back no longer. */
const intakeLookupTimeoutMs = 1_000;

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
    // On a 429 the client would pause all its calls, whatever their method: the ports wait out each
    // method's limit on its own instead (see SlackRateLimits).
    rejectRateLimitedCalls: true,
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
  // A message is acknowledged once it is kept; its names and thread history are looked up after, and its
  // thread's later messages wait for them (see `InboundQueue`). So those lookups do not sleep through a
  // Retry-After or wait on a slow answer: this client fails at once on a 429 and gives up after a second,
  // and the message then becomes a turn with ids for names and without the earlier history.
  const intakeClient = new WebClient(mode.botToken, {
    slackApiUrl: mode.apiUrl,
    logger: slackLogger,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: intakeLookupTimeoutMs,
  });
  ops.watchSlackClient(intakeClient);
  return {
    client,
    deliveryClient,
    intakeClient,
    slackLogger,
    identity: {
      userId: identity.user_id,
      user: identity.user,
      teamId: identity.team_id,
      enterpriseId: identity.enterprise_id || undefined,
    },
  };
}
