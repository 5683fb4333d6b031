import type { Logger } from 'pino';
import { describeError, HoldfastError } from '../errors.js';
import { type NewOutboxEntry, outboxKeys } from '../outbox/outbox-message.js';
import type { Approval, Conversation, Turn } from '../store/records.js';
import type { ClaimedTurn, Fence, Lease, Store } from '../store/store.js';
import { LeaseLostError } from '../store/store-errors.js';
import { TurnAbortedError, TurnStoppedError } from './agent-errors.js';
import { runAgentLoop, unansweredCalls } from './agent-loop.js';
import { ApprovalPending } from './approval-pending.js';
import type { ChatModel } from './chat-model.js';
import { KeyValueState } from './kv.js';
import type { PermissionChecker } from './permission-checker.js';
import type { Tool } from './tool.js';
import { type BudgetLimits, defaultBudgetLimits, TurnBudget } from './turn-budget.js';
import { TurnLease } from './turn-lease.js';
import type { ReportProgress, TurnProgress } from './turn-progress.js';

export type TurnOutcome =
  | { readonly type: 'completed'; readonly turn: Turn; readonly answer: string }
  | {
      readonly type: 'awaiting-approval';
      readonly turn: Turn;
      /** The first request of the batch the turn waits on. */
      readonly approval: Approval;
      readonly approvals: readonly Approval[];
    }
  | { readonly type: 'failed'; readonly turn: Turn; readonly error: { code: string; message: string } }
  /** Nothing to do here: another process holds it, it waits on approvals or an earlier turn, or it ended. */
  | { readonly type: 'not-claimed'; readonly turnId: string; readonly reason: string }
  /** Stopped by shutdown or a lost lease; it stays `running` and is recovered from its transcript. */
  | { readonly type: 'interrupted'; readonly turn: Turn; readonly reason: string };

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
  /**
   * The claim this process takes on the outbox rows a turn writes (cards, the answer, notices), so it
   * sends them at once without another commit; undefined leaves them to any worker's sweep.
   */
  readonly deliveryLeaseMs?: number;
  readonly maxSteps?: number;
  /** What one turn may spend across itself and its nested agents. */
  readonly budget?: BudgetLimits;
  /** Tokens a model call may carry (see `contextBudgetFor`). */
  readonly contextTokens?: number;
  /** Told what each turn does as it happens, for people watching; see `TurnProgress`. */
  readonly progress?: (turn: Turn, event: TurnProgress) => void;
  /** Each request's card is also copied to its approvers' direct messages (see `ApproverReach`). */
  readonly approverCopies?: boolean;
}

export const defaultContextTokens = 24_000;

export const defaultLeaseMs = 15_000;

/**
 * Drives one turn from whatever state it is in on disk to its next resting point. No state survives in
 * this object between calls: every process with the same database can pick up every turn (invariant 6).
 */
export class TurnRunner {
  readonly #options: TurnRunnerOptions & { leaseMs: number; maxSteps: number };
  /** The turns running in this process, so a Stop can reach the model call or tool in flight. */
  readonly #running = new Map<string, AbortController>();

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

  /** The claim on outbox rows this runner's commits write, when a worker in this process sends them. */
  get deliverAs(): Lease | undefined {
    const { deliveryLeaseMs, owner } = this.#options;
    return deliveryLeaseMs === undefined ? undefined : { owner, durationMs: deliveryLeaseMs };
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
    // Each turn has its own signal: shutdown or a lost lease stops this turn's model call and tools only.
    const controller = new AbortController();
    const onShutdown = () => controller.abort(new TurnAbortedError('holdfast is shutting down'));
    if (shutdown?.aborted) onShutdown();
    shutdown?.addEventListener('abort', onShutdown, { once: true });
    const lease = new TurnLease({
      store,
      fence: claim.fence,
      leaseMs: this.#options.leaseMs,
      logger: log,
      onLost: (error) => controller.abort(error),
    });
    lease.start();
    this.#running.set(turn.id, controller);
    try {
      return await this.#drive(claim, controller.signal, lease, log);
    } finally {
      this.#running.delete(turn.id);
      lease.stop();
      shutdown?.removeEventListener('abort', onShutdown);
    }
  }

  /**
   * Stops a turn running in this process at once: its model call is cancelled and its tool's process
   * group killed. The caller has already ended the turn on disk, so nothing it does after this is kept.
   */
  stop(turnId: string, stoppedBy: string): boolean {
    const controller = this.#running.get(turnId);
    controller?.abort(new TurnStoppedError(stoppedBy));
    return controller !== undefined;
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
    const conversation = await store.conversations.get(turn.conversationId);
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
    // The thread sees the whole batch first; the approvers' copies follow, in the same commit.
    const cardsFor = (approvals: readonly Approval[]): NewOutboxEntry[] => {
      const pending = approvals.filter((approval) => approval.decision === null);
      const entry = (approval: Approval, key: string, message: NewOutboxEntry['message']) => ({
        key,
        conversationId: turn.conversationId,
        turnId: turn.id,
        requestId: approval.requestId,
        message,
      });
      return [
        ...pending.map((approval) =>
          entry(approval, outboxKeys.card(approval.requestId), {
            type: 'approval-card',
            requestId: approval.requestId,
          }),
        ),
        ...(this.#options.approverCopies ? pending : []).map((approval) =>
          entry(approval, outboxKeys.approverCopy(approval.requestId, 'request'), {
            type: 'approver-copy',
            requestId: approval.requestId,
            occasion: 'request',
          }),
        ),
      ];
    };
    let startedCall = claim.startedCall;
    const takeStartedCall = (transcriptId: string, toolCallId: string) => {
      if (startedCall?.transcriptId !== transcriptId || startedCall.toolCallId !== toolCallId) return false;
      startedCall = undefined;
      return true;
    };
    try {
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
          takeStartedCall,
          // One commit: the assistant message, every pending row, the turn's kv and status, the cards.
          progress: this.#progressOf(turn, log),
          suspend: (batch) =>
            store.turns.suspend(fence, kv.snapshot(), this.#effects([]), { ...batch, outboxFor: cardsFor }),
          signal,
        },
        {
          store,
          permissions: this.#options.permissions,
          logger: log,
          redact: this.#options.redact,
          heartbeat: () => lease.assertHeld(),
        },
      );
      await store.turns.complete(
        fence,
        { answer: result.content, kv: kv.snapshot() },
        this.#effects([
          {
            key: outboxKeys.answer(turn.id),
            conversationId: turn.conversationId,
            turnId: turn.id,
            message: { type: 'answer', turnId: turn.id, text: result.content },
          },
        ]),
      );
      return { type: 'completed', turn: await this.#reload(turn), answer: result.content };
    } catch (error) {
      // Invariant 2: the one place ApprovalPending is caught, before any broad handling below.
      if (error instanceof ApprovalPending) return this.#suspended(claim, error, kv, cardsFor, log);
      const stopped = signal.aborted ? signal.reason : undefined;
      if (stopped instanceof TurnStoppedError) {
        // Ended on disk by whoever stopped it (with its notice); nothing more is written here.
        log.info({ stoppedBy: stopped.stoppedBy }, 'turn stopped');
        return {
          type: 'failed',
          turn: await this.#reload(turn),
          error: { code: stopped.code, message: stopped.message },
        };
      }
      if (error instanceof LeaseLostError || stopped instanceof LeaseLostError) {
        // Another process owns the turn now; this one writes nothing more for it (invariant 6).
        log.warn('lease lost; another process owns this turn now');
        return { type: 'interrupted', turn, reason: 'lease lost' };
      }
      if (error instanceof TurnAbortedError || stopped instanceof TurnAbortedError) {
        await store.turns.release(fence).catch((releaseError: unknown) => {
          log.warn({ err: releaseError }, 'could not release the turn; its lease will lapse');
        });
        return { type: 'interrupted', turn, reason: 'shutting down' };
      }
      return this.#fail(claim, error, log);
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
        await store.turns.suspend(fence, kv.snapshot(), this.#effects(cardsFor(pending.approvals)));
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

  async #fail(claim: ClaimedTurn, error: unknown, log: Logger): Promise<TurnOutcome> {
    const { store } = this.#options;
    const { turn, fence } = claim;
    const failure = {
      code: error instanceof HoldfastError ? error.code : 'internal_error',
      message: describeError(error),
    };
    log.error({ err: error, code: failure.code }, 'turn failed');
    try {
      await this.#closeDanglingCalls(turn, fence, failure.code);
      await store.turns.fail(
        fence,
        failure,
        this.#effects([
          {
            key: outboxKeys.turnNotice(turn.id, 'failed'),
            conversationId: turn.conversationId,
            turnId: turn.id,
            message: { type: 'turn-notice', turnId: turn.id, notice: { type: 'failed', ...failure } },
          },
        ]),
      );
      await store.audit.record({
        actor: 'holdfast',
        kind: 'turn.failed',
        conversationId: turn.conversationId,
        data: { turnId: turn.id, ...failure },
      });
    } catch (storeError) {
      log.error({ err: storeError }, 'could not record the failure; recovery will retry the turn');
      return { type: 'interrupted', turn, reason: 'failure not recorded' };
    }
    return { type: 'failed', turn: await this.#reload(turn), error: failure };
  }

  /**
   * A failed turn must not leave tool calls without results: the next turn's model call would be rejected.
   * Calls waiting for a human are never closed this way (invariant 2); a failed turn has none.
   */
  async #closeDanglingCalls(turn: Turn, fence: Fence, code: string): Promise<void> {
    const { store } = this.#options;
    const stored = await store.transcript.messages(turn.conversationId);
    for (const call of unansweredCalls(stored.map((row) => row.message))) {
      const approval = await store.approvals.forCall(turn.conversationId, call.id);
      if (approval && approval.decision === null) continue;
      await store.transcript.recordToolResult(
        fence,
        {
          conversationId: turn.conversationId,
          transcriptId: turn.conversationId,
          turnId: turn.id,
          toolCallId: call.id,
        },
        `Not run: the turn failed before this call ran (${code}).`,
      );
    }
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

  #effects(outbox: readonly NewOutboxEntry[]) {
    return { outbox, deliverAs: this.deliverAs };
  }

  async #reload(turn: Turn): Promise<Turn> {
    return (await this.#options.store.turns.get(turn.id)) ?? turn;
  }
}
