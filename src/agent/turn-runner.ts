import type { Logger } from 'pino';
import { type NewOutboxEntry, outboxKeys } from '../store/outbox-message.js';
import type { Approval, Conversation, Turn } from '../store/records.js';
import type { ClaimedTurn, Lease, Store } from '../store/store.js';
import { LeaseLostError } from '../store/store-errors.js';
import { runAgentLoop } from './agent-loop.js';
import { approvalCards } from './approval-cards.js';
import { ApprovalPending } from './approval-pending.js';
import type { ChatModel } from './chat-model.js';
import { interruptedOutcome } from './interrupted-outcome.js';
import { KeyValueState } from './kv.js';
import type { PermissionChecker } from './permission-checker.js';
import type { NameOf } from './person-name.js';
import { recordTurnFailure } from './record-turn-failure.js';
import { RunningTurns } from './running-turns.js';
import type { Tool } from './tool.js';
import { type BudgetLimits, defaultBudgetLimits, TurnBudget } from './turn-budget.js';
import { TurnLease } from './turn-lease.js';
import type { TurnOutcome } from './turn-outcome.js';
import type { ReportProgress, TurnProgress } from './turn-progress.js';

export type { TurnOutcome } from './turn-outcome.js';

export interface TurnRunnerOptions {
  readonly store: Store;
  readonly model: ChatModel;
  readonly permissions: PermissionChecker;
  readonly tools: (conversation: Conversation) => readonly Tool[];
  readonly systemPrompt: (conversation: Conversation, tools: readonly Tool[]) => string;
  readonly logger: Logger;
  /** Applied to tool results before they are stored (see `ToolRuntimeDeps.redact`). */
  readonly redact: (text: string) => string;
  /** Identifies this process in leases. */
  readonly owner: string;
  /** Short, and renewed on a timer while the turn runs: a dead process's turn is taken within seconds. */
  readonly leaseMs?: number;
  readonly maxSteps?: number;
  /** What one turn may spend across itself and its nested agents. */
  readonly budget?: BudgetLimits;
  /** Tokens a model call may carry (see `contextBudgetFor`). */
  readonly contextTokens?: number;
  /** Told what each turn does as it happens, for people watching; see `TurnProgress`. */
  readonly progress?: (turn: Turn, event: TurnProgress) => void;
  /** Each request's card is also copied to its approvers' direct messages (see `ApproverReach`). */
  readonly approverCopies?: boolean;
  /** People's names, for what the model is told about them (who edited a call); see `NameOf`. */
  readonly nameOf?: NameOf;
}

const defaultContextTokens = 24_000;

const defaultLeaseMs = 15_000;

/**
 * Drives one turn from whatever state it is in on disk to its next resting point. No state survives in
 * this object between calls: every process with the same database can pick up every turn (invariant 6).
 */
export class TurnRunner {
  readonly #options: TurnRunnerOptions & { leaseMs: number; maxSteps: number };
  readonly #running = new RunningTurns();
  /** The leases of the turns running here, by turn. */
  readonly #leases = new Map<string, TurnLease>();

  constructor(options: TurnRunnerOptions) {
    // Field by field: callers pass `undefined` for "use the default", which a spread would copy over it.
    this.#options = {
      ...options,
      leaseMs: options.leaseMs ?? defaultLeaseMs,
      maxSteps: options.maxSteps ?? 24,
    };
  }

  /** The lease this runner takes turns with; store calls that claim on its behalf need it. */
  get lease(): Lease {
    return { owner: this.#options.owner, durationMs: this.#options.leaseMs };
  }

  get owner(): string {
    return this.#options.owner;
  }

  /** Starts a queued turn, resumes a decided one, or recovers one whose process died. */
  async run(turnId: string, signal?: AbortSignal, options?: { takeOverFrom?: string }): Promise<TurnOutcome> {
    const claim = await this.#options.store.turns.claim(turnId, this.lease, options);
    if (claim.type === 'not-claimable') return { type: 'not-claimed', turnId, reason: claim.reason };
    return this.runClaimed(claim, signal);
  }

  /** Drives a turn this runner already holds (claimed by `enqueue` or `resolve` in their own commit). */
  async runClaimed(claim: ClaimedTurn, shutdown?: AbortSignal): Promise<TurnOutcome> {
    const { store, logger, owner } = this.#options;
    const turn = claim.turn;
    if (claim.fence.owner !== owner)
      return { type: 'not-claimed', turnId: turn.id, reason: 'claimed by another process' };
    const log = logger.child({ turnId: turn.id, conversationId: turn.conversationId, mode: claim.mode });
    const { controller, end } = this.#running.begin(turn.id, shutdown);
    const lease = new TurnLease({
      store,
      fence: claim.fence,
      leaseMs: this.#options.leaseMs,
      logger: log,
      onLost: (error) => controller.abort(error),
    });
    lease.start();
    this.#leases.set(turn.id, lease);
    try {
      return await this.#drive(claim, controller.signal, lease, log);
    } finally {
      end();
      lease.stop();
      if (this.#leases.get(turn.id) === lease) this.#leases.delete(turn.id);
    }
  }

  /**
   * Another replica ended a turn (stopped it): if it runs here, its lease is looked at now, and the stop
   * carried out at once (see `TurnLease.checkNow`). Nothing for a turn not running here.
   */
  checkLease(turnId: string): void {
    this.#leases.get(turnId)?.checkNow();
  }

  /**
   * Stops a turn running in this process at once: its model call is cancelled and its tool's process
   * group killed. The caller has already ended the turn on disk, so nothing it does after this is kept.
   */
  stop(turnId: string, stoppedBy: string): boolean {
    return this.#running.stop(turnId, stoppedBy);
  }

  /** Resumes a turn after its approvals were decided; anything else is left alone. */
  async resume(turnId: string, signal?: AbortSignal): Promise<TurnOutcome> {
    const turn = await this.#options.store.turns.get(turnId);
    if (turn?.status !== 'awaiting_approval') {
      return { type: 'not-claimed', turnId, reason: turn ? `turn is ${turn.status}` : 'unknown turn' };
    }
    return this.run(turnId, signal);
  }

  async #drive(claim: ClaimedTurn, signal: AbortSignal, lease: TurnLease, log: Logger): Promise<TurnOutcome> {
    const { store } = this.#options;
    const { turn, fence } = claim;
    const conversation = claim.conversation ?? (await store.conversations.get(turn.conversationId));
    if (!conversation) throw new Error(`turn ${turn.id} has no conversation row`);
    // Invariant 5: a resumed turn gets back the kv it had when it suspended, not a fresh one.
    const kvSnapshot =
      claim.mode === 'start' ? conversation.kv : ((await store.turns.resumeKv(turn.id)) ?? conversation.kv);
    const kv = KeyValueState.restore(kvSnapshot);
    const tools = this.#options.tools(conversation);
    const budget = new TurnBudget(
      this.#options.budget ?? defaultBudgetLimits,
      await store.transcript.turnUsage(turn.id),
    );
    log.debug('turn claimed');
    const cardsFor = (approvals: readonly Approval[]) =>
      approvalCards(turn, approvals, { approverCopies: this.#options.approverCopies });
    try {
      const progress = this.#progressOf(turn, log);
      const result = await runAgentLoop(
        {
          conversationId: conversation.id,
          channelId: conversation.channelId,
          transcriptId: conversation.id,
          turnId: turn.id,
          requestedBy: turn.requestedBy,
          fence,
          systemPrompt: this.#options.systemPrompt(conversation, tools),
          model: this.#options.model,
          tools,
          kv,
          maxSteps: this.#options.maxSteps,
          budget,
          contextTokens: this.#options.contextTokens ?? defaultContextTokens,
          progress,
          // One commit: the assistant message, every pending row, the turn's kv and status, the cards.
          suspend: (batch) =>
            store.turns.suspend(fence, kv.snapshot(), {}, { ...batch, outboxFor: cardsFor }),
          signal,
        },
        {
          store,
          permissions: this.#options.permissions,
          logger: log,
          redact: this.#options.redact,
          nameOf: this.#options.nameOf,
          heartbeat: () => lease.assertHeld(),
        },
      );
      progress?.({ type: 'answered' });
      await store.turns.complete(
        fence,
        { answer: result.content, kv: kv.snapshot() },
        {
          outbox: [
            {
              key: outboxKeys.answer(turn.id),
              conversationId: turn.conversationId,
              turnId: turn.id,
              message: { type: 'answer', turnId: turn.id, text: result.content },
            },
          ],
        },
      );
      return { type: 'completed', turn: await this.#reload(turn), answer: result.content };
    } catch (error) {
      // Invariant 2: the one place ApprovalPending is caught, before any broad handling below.
      if (error instanceof ApprovalPending) return this.#suspended(claim, error, kv, cardsFor, log);
      const run = { store, claim, log, reload: () => this.#reload(turn) };
      const interrupted = await interruptedOutcome(error, signal, run);
      if (interrupted) return interrupted;
      return recordTurnFailure(run, error);
    }
  }

  /** The turn waits on people. Usually its suspension is already committed with the rows it waits on. */
  async #suspended(
    claim: ClaimedTurn,
    pending: ApprovalPending,
    kv: KeyValueState,
    cardsFor: (approvals: readonly Approval[]) => NewOutboxEntry[],
    log: Logger,
  ): Promise<TurnOutcome> {
    const { store } = this.#options;
    const { turn, fence } = claim;
    if (!pending.suspended) {
      // Rows written before (a crash, or an older release) and still undecided: park on them again.
      try {
        await store.turns.suspend(fence, kv.snapshot(), { outbox: cardsFor(pending.approvals) });
      } catch (error) {
        if (error instanceof LeaseLostError) return { type: 'interrupted', turn, reason: 'lease lost' };
        throw error;
      }
    }
    log.info(
      {
        requestIds: pending.approvals.map((approval) => approval.requestId),
        tool: pending.approval.toolName,
      },
      'turn awaiting approval',
    );
    return {
      type: 'awaiting-approval',
      turn: await this.#reload(turn),
      approval: pending.approval,
      approvals: pending.approvals,
    };
  }

  /** Watching is decoration: a failing observer never stops the turn. */
  #progressOf(turn: Turn, log: Logger): ReportProgress | undefined {
    const progress = this.#options.progress;
    if (!progress) return undefined;
    return (event) => {
      try {
        progress(turn, event);
      } catch (error) {
        log.debug({ err: error }, 'could not report progress');
      }
    };
  }

  async #reload(turn: Turn): Promise<Turn> {
    return (await this.#options.store.turns.get(turn.id)) ?? turn;
  }
}
