import { type RetryOptions, type WebClient, WebClientEvent } from '@slack/web-api';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import type { ChatModel } from '../agent/chat-model.js';
import type { Tool } from '../agent/tool.js';
import type { TurnObserver } from '../runtime/turn-observer.js';
import type { SlackApiError } from '../slack/web-api/slack-errors.js';
import type { Store } from '../store/store.js';
import { AuditMirror } from './audit-mirror.js';
import { observedModel } from './observed-model.js';
import { observedStore } from './observed-store.js';
import { observedTools } from './observed-tools.js';
import { createOpsMetrics, type OpsMetrics } from './ops-metrics.js';
import { opsObserver } from './ops-observer.js';
import type { OpsEndpoints } from './ops-routes.js';
import { createReadiness } from './readiness.js';

export interface OpsOptions {
  /** One per app, never prom-client's global registry; a new one unless given. */
  readonly registry?: Registry;
  readonly store: Store;
  readonly logger: Logger;
  readonly now: () => number;
  /** Mirror audit rows to the log (HOLDFAST_AUDIT_LOG). */
  readonly auditLog?: boolean;
  /** What a scrape of `/metrics` must bear (HOLDFAST_METRICS_TOKEN); open to anyone when unset. */
  readonly metricsToken?: string;
}

/**
 * What operators see of one app: its metrics, and the parts the composition root wraps to feed them and
 * the operator log lines (the store's decisions, tools, the model, Slack calls, turn outcomes).
 */
export interface Ops {
  readonly registry: Registry;
  readonly metrics: OpsMetrics;
  /** The store, with decisions counted and logged. */
  readonly store: Store;
  /** Turn outcomes, approvals requested and deliveries given up on (see RuntimeOptions.watch). */
  readonly watch: TurnObserver;
  /** Set when audit rows are mirrored to the log; main starts and stops its timer. */
  readonly auditMirror?: AuditMirror;
  tools(tools: readonly Tool[]): Tool[];
  model(model: ChatModel): ChatModel;
  /** A Web API client's retry settings, with its retries counted. */
  slackRetries(config: RetryOptions): RetryOptions;
  /** Counts the client's rate-limited responses. */
  watchSlackClient(client: WebClient): void;
  /** For `createSlackWebApi`'s `onError`. */
  slackError(error: SlackApiError): void;
  /** For `createSlackWebApi`'s `onRetry`: a call sent again once its method's rate limit had passed. */
  slackRetried(): void;
  /** `/health`, `/ready` and `/metrics`: ready while the database and `slack` answer. */
  endpoints(slack: () => Promise<unknown>, details?: () => Record<string, unknown>): OpsEndpoints;
}

export function createOps(options: OpsOptions): Ops {
  const registry = options.registry ?? new Registry();
  const metrics = createOpsMetrics({
    registry,
    waitingWork: () => options.store.waiting(),
  });
  const logger = options.logger.child({ component: 'ops' });
  const auditMirror = options.auditLog
    ? new AuditMirror({
        store: options.store,
        logger: options.logger.child({ component: 'audit' }),
        since: options.now(),
      })
    : undefined;
  const audited = auditMirror ? () => void auditMirror.kick() : undefined;
  const store = observedStore(options.store, { metrics, logger, audited });
  const observer = opsObserver({ metrics, logger });
  return {
    registry,
    metrics,
    store,
    auditMirror,
    // Turn outcomes and deliveries given up on write audit rows too (suspensions, failures).
    watch: audited
      ? {
          ...observer,
          turnSettled: (outcome) => observer.turnSettled(outcome).finally(audited),
          deliveryFailed: (entry) => observer.deliveryFailed(entry).finally(audited),
        }
      : observer,
    tools: (tools) => observedTools(tools, { metrics, logger, store, now: options.now }),
    model: (model) => observedModel(model, { metrics, now: options.now }),
    slackRetries(config) {
      const counted: RetryOptions & { onFailedAttempt(error: { retriesLeft: number }): void } = {
        ...config,
        onFailedAttempt(error) {
          if (error.retriesLeft > 0) metrics.slackRetries.inc();
        },
      };
      return counted;
    },
    watchSlackClient(client) {
      client.on(WebClientEvent.RATE_LIMITED, () => metrics.slackRateLimited.inc());
    },
    slackRetried() {
      metrics.slackRetries.inc();
    },
    slackError(error) {
      // Slack's error strings are a short fixed vocabulary; anything else (a transport message) is one label.
      const label = /^[a-z0-9_]{1,64}$/.test(error.slackError) ? error.slackError : 'other';
      metrics.slackErrors.inc({ method: error.method, error: label });
    },
    endpoints: (slack, details) => ({
      registry,
      details,
      metricsToken: options.metricsToken,
      fault: () => store.fault?.(),
      readiness: createReadiness({
        checks: [
          { name: 'database', check: () => store.waiting() },
          { name: 'slack', check: slack },
        ],
        now: options.now,
      }),
    }),
  };
}
