import type { Logger } from 'pino';
import { describeError, HoldfastError } from '../errors.js';
import type { Approval, Conversation, Turn } from '../store/records.js';
import type { ClaimedTurn, Lease, Store } from '../store/store.js';
import { LeaseLostError } from '../store/store-errors.js';
import { TurnAbortedError } from './agent-errors.js';
import { runAgentLoop, unansweredCalls } from './agent-loop.js';
import { ApprovalPending } from './approval-pending.js';
import type { ChatModel } from './chat-model.js';
import { KeyValueState } from './kv.js';
import type { PermissionChecker } from './permission-checker.js';
import type { Tool } from './tool.js';
import type { ToolCallContext } from './tool-call-scope.js';

export type TurnOutcome =
  | { readonly type: 'completed'; readonly turn: Turn; readonly answer: string }
  | { readonly type: 'awaiting-approval'; readonly turn: Turn; readonly approval: Approval }
  | { readonly type: 'failed'; readonly turn: Turn; readonly error: { code: string; message: string } }
  /** Nothing to do here: another process holds it, it waits on approvals or an earlier turn, or it ended. */
  | { readonly type: 'not-claimed'; readonly turnId: string; readonly reason: string }
  /** Stopped by shutdown or a lost lease; it stays `running` and is recovered from its transcript. */
  | { readonly type: 'interrupted'; readonly turn: Turn; readonly reason: string };

export interface TurnRunnerOptions {
  readonly store: Store;
  readonly model: ChatModel;
  readonly permissions: PermissionChecker;
  /** Shared with the permission manager: it reads the current call from here. */
  readonly callContext: ToolCallContext;
  readonly tools: (conversation: Conversation) => readonly Tool[];
  readonly systemPrompt: (conversation: Conversation, tools: readonly Tool[]) => string;
  readonly logger: Logger;
  /** Applied to tool results before they are stored (see `ToolRuntimeDeps.redact`). */
  readonly redact: (text: string) => string;
  /** Identifies this process in leases. */
  readonly owner: string;
  readonly leaseMs?: number;
  readonly maxSteps?: number;
  readonly now?: () => number;
}

/**
 * Drives one turn from whatever state it is in on disk to its next resting point. No state survives in
 * this object between calls: every process with the same database can pick up every turn (invariant 6).
 */
export class TurnRunner {
  readonly #options: Required<TurnRunnerOptions>;

  constructor(options: TurnRunnerOptions) {
    // Field by field: callers pass `undefined` for "use the default", which a spread would copy over it.
    this.#options = {
      ...options,
      leaseMs: options.leaseMs ?? 5 * 60_000,
      maxSteps: options.maxSteps ?? 24,
      now: options.now ?? Date.now,
    };
  }

  get callContext(): ToolCallContext {
    return this.#options.callContext;
  }

  /** The lease this runner takes turns with; store calls that claim on its behalf need it. */
  get lease(): Lease {
    return { owner: this.#options.owner, durationMs: this.#options.leaseMs };
  }

  /** Starts a queued turn, resumes a decided one, or recovers one whose process died. */
  async run(turnId: string, signal?: AbortSignal): Promise<TurnOutcome> {
    const claim = await this.#options.store.turns.claim(turnId, this.lease);
    if (claim.type === 'not-claimable') return { type: 'not-claimed', turnId, reason: claim.reason };
    return this.runClaimed(claim, signal);
  }

  /** Drives a turn this runner already holds (claimed by `enqueue` or `resolve` in their own commit). */
  async runClaimed(
    claim: ClaimedTurn,
    signal: AbortSignal = new AbortController().signal,
  ): Promise<TurnOutcome> {
    const { store, logger, owner, leaseMs } = this.#options;
    const lease = this.lease;
    const turn = claim.turn;
    const turnId = turn.id;
    if (turn.leaseOwner !== owner)
      return { type: 'not-claimed', turnId, reason: 'claimed by another process' };
    let leaseRenewedAt = turn.updatedAt;
    const log = logger.child({ turnId, conversationId: turn.conversationId, mode: claim.mode });
    const conversation = await store.conversations.get(turn.conversationId);
    if (!conversation) throw new Error(`turn ${turnId} has no conversation row`);
    // Invariant 5: a resumed turn gets back the kv it had when it suspended, not a fresh one.
    const kvSnapshot =
      claim.mode === 'start' ? conversation.kv : ((await store.turns.resumeKv(turnId)) ?? conversation.kv);
    const kv = KeyValueState.restore(kvSnapshot);
    const tools = this.#options.tools(conversation);
    log.debug('turn claimed');
    try {
      const result = await runAgentLoop(
        {
          conversationId: conversation.id,
          channelId: conversation.channelId,
          transcriptId: conversation.id,
          turnId,
          requestedBy: turn.requestedBy,
          systemPrompt: this.#options.systemPrompt(conversation, tools),
          model: this.#options.model,
          tools,
          kv,
          maxSteps: this.#options.maxSteps,
          signal,
        },
        {
          store,
          permissions: this.#options.permissions,
          callContext: this.#options.callContext,
          logger: log,
          redact: this.#options.redact,
          // Renewing costs a commit, so it happens only once half the lease is used up.
          heartbeat: async () => {
            if (this.#now() - leaseRenewedAt < leaseMs / 2) return;
            if (!(await store.turns.renewLease(turnId, lease))) throw new LeaseLostError(turnId);
            leaseRenewedAt = this.#now();
          },
        },
      );
      await store.turns.complete(turnId, owner, result.content, kv.snapshot());
      return { type: 'completed', turn: await this.#reload(turn), answer: result.content };
    } catch (error) {
      // Invariant 2: the one place ApprovalPending is caught, before any broad handling below.
      if (error instanceof ApprovalPending) {
        await store.turns.suspend(turnId, owner, error.requestId, kv.snapshot());
        log.info({ requestId: error.requestId, tool: error.approval.toolName }, 'turn awaiting approval');
        return { type: 'awaiting-approval', turn: await this.#reload(turn), approval: error.approval };
      }
      if (error instanceof LeaseLostError) {
        log.warn('lease lost; another process owns this turn now');
        return { type: 'interrupted', turn, reason: 'lease lost' };
      }
      if (error instanceof TurnAbortedError || signal.aborted) {
        await store.turns.release(turnId, owner);
        return { type: 'interrupted', turn, reason: 'shutting down' };
      }
      return this.#fail(turn, error, log);
    }
  }

  /** Resumes a turn after its approvals were decided; anything else is left alone. */
  async resume(turnId: string, signal?: AbortSignal): Promise<TurnOutcome> {
    const turn = await this.#options.store.turns.get(turnId);
    if (turn?.status !== 'awaiting_approval') {
      return { type: 'not-claimed', turnId, reason: turn ? `turn is ${turn.status}` : 'unknown turn' };
    }
    return this.run(turnId, signal);
  }

  async #fail(turn: Turn, error: unknown, log: Logger): Promise<TurnOutcome> {
    const { store, owner } = this.#options;
    const failure = {
      code: error instanceof HoldfastError ? error.code : 'internal_error',
      message: describeError(error),
    };
    log.error({ err: error, code: failure.code }, 'turn failed');
    try {
      await this.#closeDanglingCalls(turn, failure.code);
      await store.turns.fail(turn.id, owner, failure);
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
  async #closeDanglingCalls(turn: Turn, code: string): Promise<void> {
    const { store } = this.#options;
    const open = unansweredCalls(await store.transcript.messages(turn.conversationId));
    for (const call of open.calls) {
      const approval = await store.approvals.forCall(turn.conversationId, call.id);
      if (approval && approval.decision === null) continue;
      await store.transcript.recordToolResult(
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

  #now(): number {
    return this.#options.now();
  }

  async #reload(turn: Turn): Promise<Turn> {
    return (await this.#options.store.turns.get(turn.id)) ?? turn;
  }
}
