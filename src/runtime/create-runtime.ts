import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ChatModel } from '../agent/chat-model.js';
import { buildSystemPrompt } from '../agent/system-prompt.js';
import type { Tool } from '../agent/tool.js';
import { ToolCallContext } from '../agent/tool-call-scope.js';
import { TurnRunner } from '../agent/turn-runner.js';
import {
  type ApproverDirectory,
  type DecisionOutcome,
  type DecisionRequest,
  decideApproval,
} from '../approvals/decide-approval.js';
import { createPermissionManager } from '../approvals/permission-manager.js';
import type { Policy } from '../approvals/policy.js';
import { redactKnownPatterns } from '../secrets/index.js';
import type { Conversation } from '../store/records.js';
import type { EnqueueResult, NewTurn, Store } from '../store/store.js';
import { AgentCache } from './agent-cache.js';
import { type RecoveryReport, recoverTurns, startSweep } from './recovery.js';
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
  /** Lease owner name of this process. */
  readonly owner?: string;
  readonly botName?: string;
  readonly instructions?: string;
  readonly maxConcurrentTurns?: number;
  readonly agentCacheSize?: number;
  readonly leaseMs?: number;
  readonly maxSteps?: number;
  readonly approvalExpiryMs?: number;
  /**
   * Removes secrets from tool results before they are stored and from user messages before the model
   * sees them; built from the configured secrets in main. Defaults to the credential patterns alone.
   */
  readonly redact?: (text: string) => string;
}

export type IncomingMessage = Omit<NewTurn, 'turnId'>;

/** The core, assembled: what the Slack adapter, local mode, tests and the benchmark all drive. */
export class Runtime {
  readonly store: Store;
  readonly runner: TurnRunner;
  readonly scheduler: TurnScheduler;
  readonly agents: AgentCache;
  readonly callContext = new ToolCallContext();
  readonly #options: RuntimeOptions;
  #observer: TurnObserver = silentObserver;
  /** Forwards to whatever `observe` set last, so components built before the adapter still reach it. */
  readonly #delegate: TurnObserver;
  #stopSweep: (() => void) | undefined;
  readonly #redact: (text: string) => string;

  constructor(options: RuntimeOptions) {
    this.#options = options;
    this.#redact = options.redact ?? redactKnownPatterns;
    this.store = options.store;
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
      callContext: this.callContext,
      logger: options.logger,
      now: options.now,
      newRequestId: options.newRequestId,
      defaultExpiryMs: options.approvalExpiryMs,
    });
    this.runner = new TurnRunner({
      store: options.store,
      model: options.model,
      permissions,
      callContext: this.callContext,
      tools: (conversation) => this.agents.get(conversation).tools,
      systemPrompt: (conversation) => this.agents.get(conversation).systemPrompt,
      logger: options.logger,
      redact: this.#redact,
      owner: options.owner ?? `holdfast-${process.pid}-${randomUUID().slice(0, 8)}`,
      leaseMs: options.leaseMs,
      maxSteps: options.maxSteps,
      now: options.now,
    });
    this.#delegate = {
      turnStarting: (turn) => this.#observer.turnStarting(turn),
      turnSettled: (outcome) => this.#observer.turnSettled(outcome),
      approvalNeedsCard: (approval) => this.#observer.approvalNeedsCard(approval),
      approvalExpired: (approval) => this.#observer.approvalExpired(approval),
      answerNeedsDelivery: (turn) => this.#observer.answerNeedsDelivery(turn),
    };
    this.scheduler = new TurnScheduler({
      store: options.store,
      runner: this.runner,
      observer: this.#delegate,
      logger: options.logger,
      maxConcurrentTurns: options.maxConcurrentTurns,
    });
  }

  get policy(): Policy {
    return this.#options.policy;
  }

  /** Where outcomes go (the Slack adapter); set once the adapter exists, since it needs the runtime too. */
  observe(observer: TurnObserver): void {
    this.#observer = observer;
  }

  /** A user message that starts (or queues) a turn in its thread; a repeated trigger is a no-op. */
  async submit(message: IncomingMessage): Promise<EnqueueResult> {
    const result = await this.store.turns.enqueue(
      {
        ...message,
        // A secret pasted into Slack is already in the thread; it need not reach the model as well.
        inputText: this.#redact(message.inputText),
        turnId: this.#options.newTurnId?.() ?? `turn_${randomUUID()}`,
      },
      this.runner.lease,
    );
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
      },
      request,
      this.runner.lease,
    );
    if ((outcome.type === 'decided' || outcome.type === 'expired') && outcome.turnReady) {
      void (outcome.claim
        ? this.scheduler.runClaimed(outcome.claim)
        : this.scheduler.resume(outcome.approval.conversationId, outcome.approval.turnId));
    }
    return outcome;
  }

  recover(): Promise<RecoveryReport> {
    return recoverTurns(this.#recoveryDeps());
  }

  startSweep(intervalMs: number): void {
    this.#stopSweep?.();
    this.#stopSweep = startSweep(this.#recoveryDeps(), intervalMs);
  }

  #recoveryDeps() {
    return {
      store: this.store,
      scheduler: this.scheduler,
      observer: this.#delegate,
      logger: this.#options.logger,
    };
  }

  idle(): Promise<void> {
    return this.scheduler.idle();
  }

  async shutdown(graceMs = 10_000): Promise<void> {
    this.#stopSweep?.();
    await this.scheduler.shutdown(graceMs);
  }
}
