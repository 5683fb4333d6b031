import type { Logger } from 'pino';
import { describeError, HoldfastError } from '../errors.js';
import { outboxKeys } from '../store/outbox-message.js';
import type { Turn } from '../store/records.js';
import type { ClaimedTurn, Fence, Store } from '../store/store.js';
import { unansweredCalls } from './agent-loop.js';
import { interruptedByFailure } from './not-run-result.js';
import type { TurnOutcome } from './turn-outcome.js';

/**
 * Ends a turn that failed: its dangling calls closed, the failure and its notice committed, the audit
 * row written. When the store will not take that, the turn is left for recovery to retry.
 */
export async function recordTurnFailure(
  run: {
    readonly store: Store;
    readonly claim: ClaimedTurn;
    readonly log: Logger;
    readonly reload: () => Promise<Turn>;
  },
  error: unknown,
): Promise<TurnOutcome> {
  const { store, log } = run;
  const { turn, fence } = run.claim;
  const failure = {
    code: error instanceof HoldfastError ? error.code : 'internal_error',
    message: describeError(error),
  };
  log.error({ err: error, code: failure.code }, 'turn failed');
  try {
    await closeDanglingCalls(store, turn, fence, failure.code);
    await store.turns.fail(fence, failure, {
      outbox: [
        {
          key: outboxKeys.turnNotice(turn.id, 'failed'),
          conversationId: turn.conversationId,
          turnId: turn.id,
          message: { type: 'turn-notice', turnId: turn.id, notice: { type: 'failed', ...failure } },
        },
      ],
    });
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
  return { type: 'failed', turn: await run.reload(), error: failure };
}

/**
 * A failed turn must not leave tool calls without results: the next turn's model call would be rejected.
 * Calls waiting for a human are never closed this way (invariant 2); a failed turn has none. A call whose
 * tool was started (the ledger says so) may have acted: it is closed as interrupted, outcome unknown, as
 * recovery closes one, so that the model does not take it for a call that never ran and run it again.
 */
async function closeDanglingCalls(store: Store, turn: Turn, fence: Fence, code: string): Promise<void> {
  // The turn's own messages: only it can have left calls open (one turn runs in a thread at a time).
  for (const call of unansweredCalls(await store.transcript.turnMessages(turn.id))) {
    const approval = await store.approvals.forCall(turn.conversationId, call.id);
    if (approval && approval.decision === null) continue;
    const ref = { transcriptId: turn.conversationId, toolCallId: call.id };
    const startedAt = await store.transcript.unfinishedStart(ref);
    if (startedAt !== undefined)
      await store.audit.record({
        actor: 'holdfast',
        kind: 'tool.interrupted',
        conversationId: turn.conversationId,
        data: { tool: call.name, toolCallId: call.id, startedAt },
      });
    await store.transcript.recordToolResult(
      fence,
      { ...ref, conversationId: turn.conversationId, turnId: turn.id },
      startedAt === undefined
        ? `Not run: the turn failed before this call ran (${code}).`
        : interruptedByFailure(code),
      startedAt === undefined ? { type: 'refused', by: 'holdfast' } : { type: 'interrupted' },
    );
  }
}
