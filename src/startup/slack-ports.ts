import type { Logger } from 'pino';
import type { EffectsOf } from '../agent/tool.js';
import type { Policy } from '../approvals/policy.js';
import type { Config } from '../config.js';
import type { Ops } from '../ops/create-ops.js';
import type { DeliveryPort } from '../outbox/delivery-port.js';
import type { Redact } from '../secrets/index.js';
import { createSlackDelivery } from '../slack/delivery/slack-delivery.js';
import { type CallPriority, SlackRateLimits } from '../slack/rate-limits/index.js';
import { createLiveAnswers, type LiveAnswers } from '../slack/turn-view/live-answers.js';
import { createSlackLookups } from '../slack/web-api/slack-lookups.js';
import type { SlackPort } from '../slack/web-api/slack-port.js';
import { createSlackWebApi } from '../slack/web-api/slack-web-api.js';
import type { Store } from '../store/index.js';
import type { SlackConnection } from './connect-slack.js';
import type { HoldfastOverrides } from './holdfast.js';

export interface SlackPorts {
  /** Listeners, the thread status and the approver directory (its client retries). */
  readonly slack: SlackPort;
  /** The lookups that make a kept message a turn (its client gives up fast). */
  readonly intake: SlackPort;
  readonly live: LiveAnswers;
  /** What the outbox sends through (its client leaves retries to the outbox). */
  readonly delivery: DeliveryPort;
  /**
   * The thread status: what only shows a passing state (`optional`, dropped when its method is short of
   * budget) and what ends it (`certain`, waiting out Slack's limits).
   */
  readonly status: { readonly optional: SlackPort; readonly certain: SlackPort };
}

/** How long a call that must land (a final status, closing a stream) waits out Slack's limits. */
const certainPatienceMs = 10 * 60_000;

/**
 * The Slack side of one process, one port per client of `connectSlack`. A person's name, a DM channel or
 * a message's link is asked of Slack once per process, whichever port wants it first, and a method Slack
 * has asked to wait is waited out by every port (the intake and the outbox fail it at once instead).
 */
export function buildSlackPorts(deps: {
  readonly connection: SlackConnection;
  readonly config: Pick<Config, 'liveAnswers' | 'reach'>;
  readonly store: Store;
  readonly policy: Policy;
  /** Where calls run, by tool, for what approval cards say. */
  readonly effectsOf?: EffectsOf;
  readonly logger: Logger;
  readonly redact: Redact;
  readonly now: () => number;
  readonly ops: Pick<Ops, 'slackError' | 'slackRetried'>;
  /** This process, as written on the live messages it opens. */
  readonly owner: () => string;
  readonly busy: () => boolean;
  readonly live?: HoldfastOverrides['live'];
  readonly slackClock?: () => number;
  readonly slackLimits?: HoldfastOverrides['slackLimits'];
}): SlackPorts {
  const { connection, config, store, logger, redact, now } = deps;
  const lookups = createSlackLookups();
  const rateLimits = new SlackRateLimits(deps.slackClock, deps.slackLimits);
  const port = (
    client: SlackConnection['client'],
    component: string,
    rateLimitPatienceMs = 0,
    priority: CallPriority = 'essential',
  ) =>
    createSlackWebApi({
      priority,
      client,
      logger: logger.child({ component }),
      redact,
      onError: deps.ops.slackError,
      onRetry: deps.ops.slackRetried,
      lookups,
      rateLimits,
      rateLimitPatienceMs,
    });
  // Late is still useful here (a reply to a click, an inbox, a name), so its calls wait out a limit.
  const slack = port(connection.client, 'slack-api', 60_000);
  const status = {
    optional: port(connection.client, 'slack-status', 0, 'optional'),
    certain: port(connection.client, 'slack-status', certainPatienceMs),
  };
  const live = createLiveAnswers({
    slack: status.optional,
    certain: status.certain,
    store,
    logger: logger.child({ component: 'slack-live' }),
    owner: deps.owner,
    now,
    busy: deps.busy,
    ...(config.liveAnswers ? {} : { showAfterMs: Number.POSITIVE_INFINITY }),
    ...deps.live,
  });
  const delivery = createSlackDelivery({
    slack: port(connection.deliveryClient, 'slack-delivery'),
    store,
    policy: deps.policy,
    effectsOf: deps.effectsOf,
    logger: logger.child({ component: 'slack-delivery' }),
    redact,
    live,
    reach: config.reach,
  });
  return { slack, intake: port(connection.intakeClient, 'slack-intake'), live, delivery, status };
}
