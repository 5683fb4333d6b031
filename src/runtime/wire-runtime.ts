import { buildSystemPrompt } from '../agent/system-prompt.js';
import type { Tool } from '../agent/tool.js';
import { TurnRunner } from '../agent/turn-runner.js';
import { escalates, noReach, reminds } from '../approvals/approver-reach.js';
import { createPermissionManager } from '../approvals/permission-manager.js';
import { OutboxWorker } from '../outbox/outbox-worker.js';
import { AgentCache } from './agent-cache.js';
import { createApproverNudger } from './nudge-approvers.js';
import type { ProcessIdentity } from './process-identity.js';
import type { RuntimeOptions } from './runtime-options.js';
import { silentObserver } from './turn-observer.js';
import { TurnScheduler } from './turn-scheduler.js';

/** The parts a `Runtime` drives, built and wired to one another. */
export interface RuntimeParts {
  readonly agents: AgentCache;
  readonly outbox: OutboxWorker | undefined;
  readonly runner: TurnRunner;
  readonly scheduler: TurnScheduler;
  /** Reminds and escalates to approvers; undefined when the runtime reaches nobody beyond the card. */
  readonly nudge: (() => Promise<number>) | undefined;
}

/** Builds the runtime's parts from its options. */
export function wireRuntime(
  options: RuntimeOptions,
  shared: {
    readonly identity: ProcessIdentity;
    readonly redact: (text: string) => string;
  },
): RuntimeParts {
  const { identity, redact } = shared;
  const observer = options.observer ?? silentObserver;
  const toolsFor =
    typeof options.tools === 'function' ? options.tools : () => options.tools as readonly Tool[];
  const agents = new AgentCache({
    max: options.agentCacheSize ?? 500,
    build: (conversation) => {
      const tools = toolsFor(conversation);
      return {
        conversationId: conversation.id,
        tools,
        systemPrompt: buildSystemPrompt({
          botName: options.botName ?? 'holdfast',
          instructions: options.instructions,
          toolNames: tools.map((tool) => tool.name),
        }),
      };
    },
  });
  // Names for what the model is told about people (who denied or edited a call), so it never repeats an id.
  const nameOf = options.directory.userName?.bind(options.directory);
  const permissions = createPermissionManager({
    store: options.store,
    policy: options.policy,
    logger: options.logger,
    now: options.now,
    newRequestId: options.newRequestId,
    defaultExpiryMs: options.approvalExpiryMs,
    nameOf,
  });
  const claimMs = options.delivery?.claimMs ?? 60_000;
  const outbox = options.delivery
    ? new OutboxWorker({
        store: options.store,
        port: options.delivery.port,
        identity,
        claimMs,
        logger: options.logger.child({ component: 'outbox' }),
        now: options.now,
        // Sends mostly wait on Slack: many in flight at once, one at a time per thread.
        concurrency: options.delivery.concurrency ?? 64,
        backoffMs: options.delivery.backoffMs,
        maxAttempts: options.delivery.maxAttempts,
        onSent: (entry) => {
          try {
            observer.delivered?.(entry);
          } catch (error) {
            options.logger.warn({ err: error }, 'turn observer failed on a delivery');
          }
        },
        onGiveUp: (entry) => {
          options.watch?.deliveryFailed(entry).catch((error: unknown) => {
            options.logger.warn({ err: error }, 'turn watcher failed on a delivery failure');
          });
          observer.deliveryFailed(entry).catch((error: unknown) => {
            options.logger.warn({ err: error }, 'turn observer failed on a delivery failure');
          });
        },
      })
    : undefined;
  // Rows this process writes are delivered the moment they commit.
  if (outbox) options.store.outbox.listen?.((conversationId) => outbox.kick(conversationId));
  const runner = new TurnRunner({
    store: options.store,
    model: options.model,
    permissions,
    tools: (conversation) => agents.get(conversation).tools,
    systemPrompt: (conversation) => agents.get(conversation).systemPrompt,
    logger: options.logger,
    redact,
    owner: identity.owner,
    leaseMs: options.leaseMs,
    maxSteps: options.maxSteps,
    contextTokens: options.contextTokens,
    budget: options.budget,
    progress: (turn, event) => observer.turnProgress?.(turn, event),
    approverCopies: reminds(options.reach ?? noReach),
    nameOf,
  });
  const reach = options.reach ?? noReach;
  const nudge =
    reminds(reach) || escalates(reach)
      ? createApproverNudger({
          store: options.store,
          reach,
          logger: options.logger,
          now: options.now ?? Date.now,
          kick: (conversationId) => outbox?.kick(conversationId),
        })
      : undefined;
  const scheduler = new TurnScheduler({
    store: options.store,
    runner,
    observer: {
      turnStarting: (turn) => observer.turnStarting(turn),
      deliveryFailed: (entry) => observer.deliveryFailed(entry),
      turnSettled: async (outcome) => {
        // Whatever the turn's commit wrote to the outbox goes out now, not at the next sweep.
        if (outcome.type !== 'not-claimed') outbox?.kick(outcome.turn.conversationId);
        await options.watch?.turnSettled(outcome).catch((error: unknown) => {
          options.logger.warn({ err: error }, 'turn watcher failed');
        });
        await observer.turnSettled(outcome);
      },
    },
    logger: options.logger,
    maxConcurrentTurns: options.maxConcurrentTurns,
    pressure: options.pressure,
  });
  return { agents, outbox, runner, scheduler, nudge };
}
