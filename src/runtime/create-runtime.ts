import { randomUUID } from 'node:crypto';
import { hashCall } from '../agent/hash-arguments.js';
import type { TurnRunner } from '../agent/turn-runner.js';
import { checkEdit, type EditCheck } from '../approvals/check-edit.js';
import {
  type CardLookup,
  type DecisionOutcome,
  type DecisionRequest,
  decideApproval,
} from '../approvals/decide-approval.js';
import type { Policy } from '../approvals/policy.js';
import type { OutboxWorker } from '../outbox/outbox-worker.js';
import { redactKnownPatterns } from '../secrets/index.js';
import type { Approval } from '../store/records.js';
import { defaultAdmissionLimits } from '../store/rules/admit-turn.js';
import type { EnqueueResult, NewTurn, Store } from '../store/store.js';
import type { AgentCache } from './agent-cache.js';
import { InboundQueue } from './inbound-queue.js';
import { createProcessIdentity, type ProcessIdentity } from './process-identity.js';
import {
  type RecoveryDeps,
  type RecoveryReport,
  recoverTurns,
  type SweepTimer,
  startSweep,
} from './recovery.js';
import type { RuntimeOptions } from './runtime-options.js';
import { type StopOutcome, stopTurn } from './stop-turn.js';
import type { TurnScheduler } from './turn-scheduler.js';
import { wireRuntime } from './wire-runtime.js';

export type { RuntimeOptions } from './runtime-options.js';

export type IncomingMessage = Omit<NewTurn, 'turnId'>;

/** The core, assembled: what the Slack adapter, local mode, tests and the benchmark all drive. */
export function createRuntime(options: RuntimeOptions): Runtime {
  return new Runtime(options);
}

/** The core, assembled (see `createRuntime`). */
export class Runtime {
  readonly store: Store;
  readonly #runner: TurnRunner;
  readonly #scheduler: TurnScheduler;
  /** The agents built per conversation (a bounded cache); read by tests that check the bound. */
  readonly agents: AgentCache;
  readonly #identity: ProcessIdentity;
  readonly #outbox: OutboxWorker | undefined;
  /** Messages acknowledged before they became turns; the adapter that keeps them handles them. */
  readonly inbound: InboundQueue;
  readonly #options: RuntimeOptions;
  #stopSweep: (() => Promise<void>) | undefined;
  /** Aborted at shutdown: recovery work still to do is left to the next process. */
  readonly #stopping = new AbortController();
  /** Recovery work left running in the background (boot's expiry); shutdown waits for it. */
  readonly #background = new Set<Promise<unknown>>();
  readonly #stopNotices: (() => void) | undefined;
  readonly #redact: (text: string) => string;
  readonly #nudge: (() => Promise<number>) | undefined;

  constructor(options: RuntimeOptions) {
    this.#options = options;
    this.#redact = options.redact ?? redactKnownPatterns;
    this.store = options.store;
    this.#identity = options.identity ?? createProcessIdentity();
    const parts = wireRuntime(options, {
      identity: this.#identity,
      redact: this.#redact,
    });
    this.agents = parts.agents;
    this.#outbox = parts.outbox;
    this.#runner = parts.runner;
    this.#scheduler = parts.scheduler;
    this.#nudge = parts.nudge;
    this.inbound = new InboundQueue({
      store: this.store.inbound,
      logger: options.logger,
      now: options.now ?? Date.now,
    });
    this.#stopNotices = this.#listen();
  }

  /**
   * A turn another replica gave back (it shut down) is taken at once instead of at the next sweep: every
   * replica hears it and tries, and the store lets one claim it. A turn that ended elsewhere (stopped by a
   * person whose click reached another replica) is stopped here at once if it runs here.
   */
  #listen(): (() => void) | undefined {
    return this.store.notices?.subscribe((notice) => {
      if (notice.event === 'released') void this.#scheduler.recover(notice.conversationId, notice.turnId);
      else this.#runner.checkLease(notice.turnId);
    });
  }

  /** The tools on offer changed (an MCP server's list): the next turn of each thread gets them as they are. */
  toolsChanged(): void {
    this.agents.clear();
  }

  /** Resolves when no turn is queued or running (a stop's last results are in). */
  turnsSettled(): Promise<void> {
    return this.#scheduler.idle();
  }

  get policy(): Policy {
    return this.#options.policy;
  }

  /** How a click on a message that is not a recorded card is checked (see `bindingMismatch`). */
  get cards(): CardLookup | undefined {
    return this.#options.cards;
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
      this.#runner.lease,
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
      if (result.claim) void this.#scheduler.runClaimed(result.claim);
      else void this.#scheduler.drain(result.turn.conversationId);
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
        cards: this.#options.cards,
        definitionChanged: (approval) => this.#definitionChanged(approval),
      },
      request,
      { lease: this.#runner.lease },
    );
    const told = outcome.type === 'refused' && outcome.reason === 'definition-changed';
    if (
      outcome.type === 'decided' ||
      outcome.type === 'expired' ||
      outcome.type === 'vote-recorded' ||
      told
    ) {
      this.#outbox?.kick(outcome.approval.conversationId);
    }
    if ((outcome.type === 'decided' || outcome.type === 'expired') && outcome.turnReady) {
      if (outcome.claim) void this.#scheduler.runClaimed(outcome.claim);
      else void this.#scheduler.resume(outcome.approval.conversationId, outcome.approval.turnId);
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

  /**
   * The request's arguments bound to its tool's definition now (see `hashCall`), when the tool binds one
   * and it is not the one the request was made with; with what changed, as the tool can tell.
   */
  async #definitionChanged(approval: Approval): Promise<{ argsHash: string; changed: string } | undefined> {
    const conversation = await this.store.conversations.get(approval.conversationId);
    const tool = conversation
      ? this.agents.get(conversation).tools.find((candidate) => candidate.name === approval.toolName)
      : undefined;
    if (tool?.definitionHash === undefined) return undefined;
    const argsHash = hashCall(tool, approval.arguments, '');
    if (argsHash === approval.argsHash) return undefined;
    return { argsHash, changed: tool.definitionChange ?? 'its definition changed' };
  }

  /** Someone pressed Stop on a turn (see `stopTurn`); the thread's next queued turn may start. */
  async stop(request: { turnId: string; userId: string }): Promise<StopOutcome> {
    const outcome = await stopTurn(
      {
        store: this.store,
        runner: this.#runner,
        policy: this.#options.policy,
        directory: this.#options.directory,
        logger: this.#options.logger,
      },
      request,
    );
    if (outcome.type === 'stopped') {
      this.#outbox?.kick(outcome.turn.conversationId);
      void this.#scheduler.drain(outcome.turn.conversationId);
    }
    return outcome;
  }

  /**
   * Picks up what a dead or busy process left (DESIGN §4). At boot, pass `expiry: 'background'`: overdue
   * requests then expire in batches after start-up rather than before it.
   */
  recover(options?: { readonly expiry?: 'now' | 'background' }): Promise<RecoveryReport> {
    return recoverTurns(this.#recoveryDeps(), { ...options, inboundOlderThanMs: 0 });
  }

  /** Sweeps every `intervalMs` (see `startSweep`); `timer` is for tests that fire the sweep themselves. */
  startSweep(intervalMs: number, timer?: SweepTimer): void {
    void this.#stopSweep?.();
    this.#stopSweep = startSweep(this.#recoveryDeps(), intervalMs, timer);
  }

  #recoveryDeps(): RecoveryDeps {
    return {
      store: this.store,
      scheduler: this.#scheduler,
      outbox: this.#outbox,
      identity: this.#identity,
      logger: this.#options.logger,
      now: this.#options.now ?? Date.now,
      nudge: this.#nudge,
      inbound: this.inbound,
      stopping: this.#stopping.signal,
      background: (work) => {
        this.#background.add(work);
        void work.finally(() => this.#background.delete(work));
      },
    };
  }

  /** Resolves when no turn is queued or running and nothing this process claimed waits to be sent. */
  async idle(): Promise<void> {
    await this.inbound.idle();
    await this.#scheduler.idle();
    await this.#outbox?.idle();
    await this.#scheduler.idle();
    await this.#options.observer?.idle?.();
  }

  /**
   * Stops taking work, gives back turns claimed but not started, lets running turns stop at their next
   * step, then lets sends in flight finish; anything left is on disk for the next process.
   */
  async shutdown(graceMs = 10_000): Promise<void> {
    this.#stopping.abort();
    this.#stopNotices?.();
    // A sweep under way finishes its step against an open store (it stops between expiry batches).
    await this.#stopSweep?.();
    await Promise.all(this.#background);
    // A message being made into a turn finishes first (it is quick: Slack lookups that fail fast and
    // one write); what does not stays kept for the next process.
    await this.inbound.stop(graceMs);
    await this.#scheduler.shutdown(graceMs);
    await this.#outbox?.stop(graceMs);
  }
}
