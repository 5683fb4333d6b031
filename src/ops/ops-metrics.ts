import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { WaitingWork } from '../store/store.js';

/**
 * holdfast's Prometheus metrics, registered on the registry the composition root passes in (one per
 * app, never prom-client's global default: two apps in one process, as in tests, keep their own counts).
 */
export interface OpsMetrics {
  readonly registry: Registry;
  readonly approvalsRequested: Counter<'tool'>;
  readonly decisions: Counter<'outcome'>;
  readonly decisionSeconds: Histogram<'outcome'>;
  readonly turns: Counter<'outcome'>;
  readonly toolRuns: Counter<'tool' | 'outcome'>;
  readonly toolSeconds: Histogram<'tool'>;
  readonly modelRequests: Counter<'outcome'>;
  readonly modelSeconds: Histogram<'outcome'>;
  readonly modelTokens: Counter<'type'>;
  readonly slackErrors: Counter<'method' | 'error'>;
  readonly slackRetries: Counter;
  readonly slackRateLimited: Counter;
  readonly deliveriesFailed: Counter;
}

const minute = 60;
const hour = 60 * minute;

export function createOpsMetrics(options: {
  readonly registry: Registry;
  /** Read at every scrape; a failure leaves the gauges at their last values. */
  readonly waitingWork: () => Promise<WaitingWork>;
}): OpsMetrics {
  const registers = [options.registry];
  const waiting = (name: string, help: string, pick: (work: WaitingWork) => number) =>
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(pick(await options.waitingWork()));
      },
    });
  waiting(
    'holdfast_approvals_pending',
    'Approval requests waiting for a decision.',
    (w) => w.pendingApprovals,
  );
  waiting(
    'holdfast_outbox_pending',
    'Messages waiting in the outbox to be delivered to Slack.',
    (w) => w.pendingDeliveries,
  );
  waiting(
    'holdfast_turns_queued',
    'Turns queued behind another turn of their thread or the concurrency limit.',
    (w) => w.queuedTurns,
  );
  return {
    registry: options.registry,
    approvalsRequested: new Counter({
      name: 'holdfast_approvals_requested_total',
      help: 'Approval requests made, by tool.',
      labelNames: ['tool'],
      registers,
    }),
    decisions: new Counter({
      name: 'holdfast_approval_decisions_total',
      help: 'Approval requests decided, by outcome (allowed, denied, expired).',
      labelNames: ['outcome'],
      registers,
    }),
    decisionSeconds: new Histogram({
      name: 'holdfast_approval_decision_seconds',
      help: 'How long a request waited for its decision, by outcome.',
      labelNames: ['outcome'],
      buckets: [5, 15, 30, minute, 5 * minute, 15 * minute, hour, 4 * hour, 24 * hour],
      registers,
    }),
    turns: new Counter({
      name: 'holdfast_turns_total',
      help: 'Turns that ended a run, by outcome (completed, awaiting_approval, failed, interrupted).',
      labelNames: ['outcome'],
      registers,
    }),
    toolRuns: new Counter({
      name: 'holdfast_tool_runs_total',
      help: 'Tool runs, by tool and outcome (ok, error, refused, suspended).',
      labelNames: ['tool', 'outcome'],
      registers,
    }),
    toolSeconds: new Histogram({
      name: 'holdfast_tool_run_seconds',
      help: 'How long tool runs took, by tool.',
      labelNames: ['tool'],
      buckets: [0.01, 0.1, 0.5, 1, 5, 15, minute, 5 * minute],
      registers,
    }),
    modelRequests: new Counter({
      name: 'holdfast_model_requests_total',
      help: 'Requests to the model, by outcome (ok, error).',
      labelNames: ['outcome'],
      registers,
    }),
    modelSeconds: new Histogram({
      name: 'holdfast_model_request_seconds',
      help: 'Model request latency, by outcome.',
      labelNames: ['outcome'],
      buckets: [0.25, 0.5, 1, 2, 5, 10, 30, minute, 2 * minute],
      registers,
    }),
    modelTokens: new Counter({
      name: 'holdfast_model_tokens_total',
      help: 'Tokens the model reported, by type (prompt, completion).',
      labelNames: ['type'],
      registers,
    }),
    slackErrors: new Counter({
      name: 'holdfast_slack_api_errors_total',
      help: 'Slack Web API calls that failed, by method and error.',
      labelNames: ['method', 'error'],
      registers,
    }),
    slackRetries: new Counter({
      name: 'holdfast_slack_api_retries_total',
      help: 'Slack Web API attempts that failed and were retried.',
      registers,
    }),
    slackRateLimited: new Counter({
      name: 'holdfast_slack_api_rate_limited_total',
      help: 'Slack Web API responses that were rate limited (HTTP 429).',
      registers,
    }),
    deliveriesFailed: new Counter({
      name: 'holdfast_deliveries_failed_total',
      help: 'Outbox messages given up on (the requester was told directly).',
      registers,
    }),
  };
}
