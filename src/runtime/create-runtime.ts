import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChatModel } from '../agent/chat-model.js';
import { buildSystemPrompt } from '../agent/system-prompt.js';
import type { Tool } from '../agent/tool.js';
import type { BudgetLimits } from '../agent/turn-budget.js';
import { TurnRunner } from '../agent/turn-runner.js';
import { type ApproverReach, escalates, noReach, reminds } from '../approvals/approver-reach.js';
import { checkEdit, type EditCheck } from '../approvals/check-edit.js';
import {
  type ApproverDirectory,
  type DecisionOutcome,
  type DecisionRequest,
  decideApproval,
} from '../approvals/decide-approval.js';
import { createPermissionManager } from '../approvals/permission-manager.js';
import type { Policy } from '../approvals/policy.js';
import type { DeliveryPort } from '../outbox/delivery-port.js';
import { OutboxWorker } from '../outbox/outbox-worker.js';
import { redactKnownPatterns } from '../secrets/index.js';
import type { Approval, Conversation } from '../store/records.js';
import { type AdmissionLimits, defaultAdmissionLimits } from '../store/rules/admit-turn.js';
import type { EnqueueResult, NewTurn, Store } from '../store/store.js';
import { AgentCache } from './agent-cache.js';
import type { LoadPressure } from './load-pressure.js';
import { createApproverNudger } from './nudge-approvers.js';
import { createProcessIdentity, type ProcessIdentity } from './process-identity.js';
import { type RecoveryDeps, type RecoveryReport, recoverTurns, startSweep } from './recovery.js';
import { type StopOutcome, stopTurn } from './stop-turn.js';
import { silentObserver, type TurnObserver } from './turn-observer.js';
import { TurnScheduler } from './turn-scheduler.js';

export interface RuntimeOptions {
  readonly store: Store;
  readonly model: ChatModel;
  readonly policy: Policy;
  /** Tools offered in a conversation (the same set everywhere unless a function decides otherwise). */
  readonly tools: readonly Tool[] | ((conversation: Conversation) => readonly Tool[]);
  readonly directory: ApproverDirectory;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly newRequestId?: () => string;
  readonly newTurnId?: () => string;
  /** Who this process is in leases and claims. */
  readonly identity?: ProcessIdentity;
  readonly botName?: string;
  readonly instructions?: string;
  readonly maxConcurrentTurns?: number;
  /** How far behind the process is; turn concurrency adapts to it (see `TurnScheduler`). */
  readonly pressure?: LoadPressure;
  readonly agentCacheSize?: number;
  readonly leaseMs?: number;
  readonly maxSteps?: number;
  /** Tokens one model call may carry; older messages are left out past it (see `contextBudgetFor`). */
  readonly contextTokens?: number;
  readonly approvalExpiryMs?: number;
  /** What one turn may spend across itself and its nested agents. */
  readonly budget?: BudgetLimits;
  /** Unfinished turns a thread and a person may have; more are refused politely. */
  readonly admission?: AdmissionLimits;
  /**
   * Copies of each request in its approvers' DMs, a reminder and an escalation (see `ApproverReach`);
   * none by default. Who gets them is the delivery port's business; the runtime writes when.
   */
  readonly reach?: ApproverReach;
  /** Sends the outbox (Slack, the local workspace); without it rows wait in the store. */
  readonly delivery?: {
    readonly port: DeliveryPort;
    readonly claimMs?: number;
    readonly concurrency?: number;
    readonly backoffMs?: (attempt: number) => number;
    readonly maxAttempts?: number;
  };
  /**
   * Removes secrets from tool results before they are stored and from user messages before the model
   * sees them; built from the configured secrets in main. Defaults to the credential patterns alone.
   */
  readonly redact?: (text: string) => string;
  /**
   * Told of every turn outcome and delivery failure besides the adapter's observer (metrics, operator
   * logs); errors it throws are logged and go no further.
   */
  readonly watch?: TurnObserver;
}

export type IncomingMessage = Omit<NewTurn, 'turnId'>;

/** The core, assembled: what the Slack adapter, local mode, tests and the benchmark all drive. */
export class Runtime {
  readonly store: Store;
  readonly runner: TurnRunner;
  readonly scheduler: TurnScheduler;
  readonly agents: AgentCache;
  readonly identity: ProcessIdentity;
  readonly outbox: OutboxWorker | undefined;
  readonly #options: RuntimeOptions;
  #observer: TurnObserver = silentObserver;
  #stopSweep: (() => void) | undefined;
  readonly #stopNotices: (() => void) | undefined;
  readonly #redact: (text: string) => string;
  readonly #nudge: (() => Promise<number>) | undefined;

  constructor(options: RuntimeOptions) {
    this.#options = options;
    this.#redact = options.redact ?? redactKnownPatterns;
    this.store = options.store;
    this.identity = options.identity ?? createProcessIdentity();
    const toolsFor =
      typeof options.tools === 'function' ? options.tools : () => options.tools as readonly Tool[];
    this.agents = new AgentCache({
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
    const permissions = createPermissionManager({
      store: options.store,
      policy: options.policy,
      logger: options.logger,
      now: options.now,
      newRequestId: options.newRequestId,
      defaultExpiryMs: options.approvalExpiryMs,
    });
    const claimMs = options.delivery?.claimMs ?? 60_000;
    this.outbox = options.delivery
      ? new OutboxWorker({
          store: options.store,
          port: options.delivery.port,
          identity: this.identity,
          claimMs,
          logger: options.logger.child({ component: 'outbox' }),
          now: options.now,
          // Sends mostly wait on Slack: many in flight at once, one at a time per thread.
          concurrency: options.delivery.concurrency ?? 64,
          backoffMs: options.delivery.backoffMs,
          maxAttempts: options.delivery.maxAttempts,
          onGiveUp: (entry) => {
            options.watch?.deliveryFailed(entry).catch((error: unknown) => {
              options.logger.warn({ err: error }, 'turn watcher failed on a delivery failure');
            });
            this.#observer.deliveryFailed(entry).catch((error: unknown) => {
              options.logger.warn({ err: error }, 'turn observer failed on a delivery failure');
            });
          },
        })
      : undefined;
    this.runner = new TurnRunner({
      store: options.store,
      model: options.model,
      permissions,
      tools: (conversation) => this.agents.get(conversation).tools,
      systemPrompt: (conversation) => this.agents.get(conversation).systemPrompt,
      logger: options.logger,
      redact: this.#redact,
      owner: this.identity.owner,
      leaseMs: options.leaseMs,
      deliveryLeaseMs: this.outbox ? claimMs : undefined,
      maxSteps: options.maxSteps,
      contextTokens: options.contextTokens,
      budget: options.budget,
      progress: (turn, event) => this.#observer.turnProgress?.(turn, event),
      approverCopies: reminds(options.reach ?? noReach),
    });
    const reach = options.reach ?? noReach;
    this.#nudge =
      reminds(reach) || escalates(reach)
        ? createApproverNudger({
            store: options.store,
            reach,
            logger: options.logger,
            now: options.now ?? Date.now,
            kick: (conversationId) => this.outbox?.kick(conversationId),
          })
        : undefined;
    this.scheduler = new TurnScheduler({
      store: options.store,
      runner: this.runner,
      // Forwards to whatever `observe` set last, so the scheduler built now still reaches the adapter.
      observer: {
        turnStarting: (turn) => this.#observer.turnStarting(turn),
        deliveryFailed: (entry) => this.#observer.deliveryFailed(entry),
        turnSettled: async (outcome) => {
          // Whatever the turn's commit wrote to the outbox goes out now, not at the next sweep.
          if (outcome.type !== 'not-claimed') this.outbox?.kick(outcome.turn.conversationId);
          await options.watch?.turnSettled(outcome).catch((error: unknown) => {
            options.logger.warn({ err: error }, 'turn watcher failed');
          });
          await this.#observer.turnSettled(outcome);
        },
      },
      logger: options.logger,
      maxConcurrentTurns: options.maxConcurrentTurns,
      pressure: options.pressure,
    });
    this.#stopNotices = this.#listen();
  }

  /**
   * A turn another replica gave back (it shut down) is taken at once instead of at the next sweep: every
   * replica hears it and tries, and the store lets one claim it.
   */
  #listen(): (() => void) | undefined {
    return this.store.notices?.subscribe((notice) => {
      if (notice.event === 'released') void this.scheduler.recover(notice.conversationId, notice.turnId);
    });
  }

  get policy(): Policy {
    return this.#options.policy;
  }

  /** Status decoration (the Slack adapter); set once the adapter exists, since it needs the runtime too. */
  observe(observer: TurnObserver): void {
    this.#observer = observer;
  }

  /**
   * A user message that starts (or queues) a turn in its thread; a repeated trigger is a no-op. A refusal
   * (too much unfinished work) is audited unless `auditRefusal` is false: the second copy of one post
   * (Slack's message/app_mention pair) is the same refusal.
   */
  async submit(message: IncomingMessage, options: { auditRefusal?: boolean } = {}): Promise<EnqueueResult> {
    const result = await this.store.turns.enqueue(
      {
        ...message,
        // A secret pasted into Slack is already in the thread; it need not reach the model as well.
        inputText: this.#redact(message.inputText),
        turnId: this.#options.newTurnId?.() ?? `turn_${randomUUID()}`,
      },
      this.runner.lease,
      this.#options.admission ?? defaultAdmissionLimits,
    );
    if (result.type === 'refused' && options.auditRefusal !== false) {
      await this.store.audit.record({
        actor: message.requestedBy,
        kind: 'turn.refused',
        data: { reason: result.reason, unfinished: result.unfinished, triggerKey: message.triggerKey },
      });
      this.#options.logger.warn(
        { user: message.requestedBy, reason: result.reason, unfinished: result.unfinished },
        'message refused: too much unfinished work',
      );
    }
    if (result.type === 'enqueued') {
      void (result.claim
        ? this.scheduler.runClaimed(result.claim)
        : this.scheduler.drain(result.turn.conversationId));
    }
    return result;
  }

  /** A human's decision; when it completes the turn's set of decisions, the turn resumes. */
  async decide(request: DecisionRequest): Promise<DecisionOutcome> {
    const outcome = await decideApproval(
      {
        store: this.store,
        policy: this.#options.policy,
        directory: this.#options.directory,
        logger: this.#options.logger,
        checkEdit: (approval, edited) => this.checkEdit(approval, edited),
      },
      request,
      { lease: this.runner.lease, deliverAs: this.outbox?.lease },
    );
    if (outcome.type === 'decided' || outcome.type === 'expired' || outcome.type === 'vote-recorded') {
      this.outbox?.kick(outcome.approval.conversationId);
    }
    if ((outcome.type === 'decided' || outcome.type === 'expired') && outcome.turnReady) {
      void (outcome.claim
        ? this.scheduler.runClaimed(outcome.claim)
        : this.scheduler.resume(outcome.approval.conversationId, outcome.approval.turnId));
    }
    return outcome;
  }

  /**
   * Whether an approver's edited arguments could be allowed (see `checkEdit`), against the tool the
   * request's conversation offers; a form checks before it closes, and the decision checks again.
   */
  async checkEdit(approval: Approval, edited: unknown): Promise<EditCheck> {
    const conversation = await this.store.conversations.get(approval.conversationId);
    const tool = conversation
      ? this.agents.get(conversation).tools.find((candidate) => candidate.name === approval.toolName)
      : undefined;
    // A nested agent's call sits in a transcript of its own, with tools the conversation may not offer.
    const own = approval.transcriptId === approval.conversationId ? tool : undefined;
    return checkEdit(
      { policy: this.#options.policy, tool: own, logger: this.#options.logger },
      approval,
      edited,
    );
  }

  /** Someone pressed Stop on a turn (see `stopTurn`); the thread's next queued turn may start. */
  async stop(request: { turnId: string; userId: string }): Promise<StopOutcome> {
    const outcome = await stopTurn(
      {
        store: this.store,
        runner: this.runner,
        policy: this.#options.policy,
        directory: this.#options.directory,
        logger: this.#options.logger,
        deliverAs: this.outbox?.lease,
      },
      request,
    );
    if (outcome.type === 'stopped') {
      this.outbox?.kick(outcome.turn.conversationId);
      void this.scheduler.drain(outcome.turn.conversationId);
    }
    return outcome;
  }

  /**
   * Picks up what a dead or busy process left (DESIGN §4). At boot, pass `expiry: 'background'`: overdue
   * requests then expire in batches after start-up rather than before it.
   */
  recover(options?: { readonly expiry?: 'now' | 'background' }): Promise<RecoveryReport> {
    return recoverTurns(this.#recoveryDeps(), options);
  }

  startSweep(intervalMs: number): void {
    this.#stopSweep?.();
    this.#stopSweep = startSweep(this.#recoveryDeps(), intervalMs);
  }

  #recoveryDeps(): RecoveryDeps {
    return {
      store: this.store,
      scheduler: this.scheduler,
      outbox: this.outbox,
      identity: this.identity,
      logger: this.#options.logger,
      now: this.#options.now ?? Date.now,
      nudge: this.#nudge,
    };
  }

  /** Resolves when no turn is queued or running and nothing this process claimed waits to be sent. */
  async idle(): Promise<void> {
    await this.scheduler.idle();
    await this.outbox?.idle();
    await this.scheduler.idle();
    await this.#observer.idle?.();
  }

  /**
   * Stops taking work, gives back turns claimed but not started, lets running turns stop at their next
   * step, then lets sends in flight finish; anything left is on disk for the next process.
   */
  async shutdown(graceMs = 10_000): Promise<void> {
    this.#stopSweep?.();
    this.#stopNotices?.();
    await this.scheduler.shutdown(graceMs);
    await this.outbox?.stop(graceMs);
  }
}
