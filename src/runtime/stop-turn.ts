import type { Logger } from 'pino';
import { TurnStoppedError } from '../agent/agent-errors.js';
import type { TurnRunner } from '../agent/turn-runner.js';
import type { ApproverDirectory } from '../approvals/decide-approval.js';
import type { Policy } from '../approvals/policy.js';
import { outboxKeys } from '../store/outbox-message.js';
import type { Turn } from '../store/records.js';
import type { Store } from '../store/store.js';

export interface StopTurnDeps {
  readonly store: Store;
  readonly runner: TurnRunner;
  readonly policy: Policy;
  readonly directory: ApproverDirectory;
  readonly logger: Logger;
}

export type StopOutcome =
  | { readonly type: 'stopped'; readonly turn: Turn }
  /** Finished, failed or stopped already: nothing to stop. */
  | { readonly type: 'already-ended'; readonly turn: Turn }
  | { readonly type: 'not-allowed' }
  | { readonly type: 'unknown' };

const open = new Set(['queued', 'running', 'awaiting_approval']);

/**
 * Stops a turn for good, on disk first: it ends `failed` with code `turn_stopped` and the notice "stopped
 * by @x" in one commit, so no process and no restart resumes it. Then, if it runs here, its model call
 * and tool are cancelled (the shell's process group is killed); its pending requests are declined by the
 * person who stopped it, which rewrites their cards. Who may: the requester and the approvers.
 */
export async function stopTurn(
  deps: StopTurnDeps,
  request: { turnId: string; userId: string },
): Promise<StopOutcome> {
  const { store, logger } = deps;
  const turn = await store.turns.get(request.turnId);
  if (!turn) return { type: 'unknown' };
  if (!(await mayStop(deps, turn, request.userId))) return { type: 'not-allowed' };
  if (!open.has(turn.status)) return { type: 'already-ended', turn };
  const stopped = new TurnStoppedError(request.userId);
  const failure = { code: stopped.code, message: stopped.message, stoppedBy: request.userId };
  await store.turns.fail({ turnId: turn.id }, failure, {
    outbox: [
      {
        key: outboxKeys.turnNotice(turn.id, 'stopped'),
        conversationId: turn.conversationId,
        turnId: turn.id,
        message: { type: 'turn-notice', turnId: turn.id, notice: { type: 'stopped', by: request.userId } },
      },
    ],
  });
  const ended = await store.turns.get(turn.id);
  // Another ending won the race (it answered, or failed): that one stands.
  if (ended?.errorCode !== stopped.code) return { type: 'already-ended', turn: ended ?? turn };
  deps.runner.stop(turn.id, request.userId);
  for (const approval of await store.approvals.forTurn(turn.id)) {
    if (approval.decision !== null) continue;
    await store.approvals
      .resolve({ requestId: approval.requestId, decision: 'denied', decidedBy: request.userId })
      .catch((error: unknown) =>
        logger.warn({ err: error, requestId: approval.requestId }, 'could not withdraw a request'),
      );
  }
  await store.audit.record({
    actor: request.userId,
    kind: 'turn.stopped',
    conversationId: turn.conversationId,
    data: { turnId: turn.id, was: turn.status },
  });
  logger.info({ turnId: turn.id, stoppedBy: request.userId, was: turn.status }, 'turn stopped');
  return { type: 'stopped', turn: ended };
}

/** Who may stop a turn: whoever asked for it, and the approvers (of any tool, as anyone may be asked). */
export async function mayStop(
  deps: Pick<StopTurnDeps, 'policy' | 'directory'>,
  turn: Pick<Turn, 'requestedBy'>,
  userId: string,
): Promise<boolean> {
  if (turn.requestedBy === userId) return true;
  const { approvers } = deps.policy;
  const sets = [approvers.default, ...Object.values(approvers.overrides)];
  if (sets.some((set) => set.users.includes(userId))) return true;
  for (const group of new Set(sets.flatMap((set) => set.groups))) {
    const members = await deps.directory.groupMembers(group).catch(() => [] as readonly string[]);
    if (members.includes(userId)) return true;
  }
  return false;
}
