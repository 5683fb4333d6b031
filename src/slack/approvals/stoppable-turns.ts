import { mayStop } from '../../runtime/stop-turn.js';
import type { Turn } from '../../store/records.js';
import type { InboxDeps } from './approval-inbox-query.js';

export interface StoppableTurn {
  readonly turnId: string;
  readonly status: 'running' | 'awaiting_approval';
  readonly requestedBy: string;
  readonly threadLink: string | undefined;
}

/** A list, not a console: the rest are stopped from their threads. */
const listedAtMost = 10;

/**
 * The turns `viewer` may stop (as the Stop button allows: the requester and the approvers) that run or
 * wait on people, in one channel or, without one, anywhere: what `/approvals` offers to stop.
 */
export async function stoppableForViewer(
  deps: InboxDeps,
  query: { viewer: string; channelId?: string },
): Promise<StoppableTurn[]> {
  const pending = await deps.store.approvals.pending(query.channelId ? { channelId: query.channelId } : {});
  const { running } = await deps.store.turns.recoverable();
  const ids = [
    ...new Set([...running.map((turn) => turn.id), ...pending.map((approval) => approval.turnId)]),
  ];
  const listed: StoppableTurn[] = [];
  for (const id of ids) {
    if (listed.length >= listedAtMost) break;
    const turn = running.find((candidate) => candidate.id === id) ?? (await deps.store.turns.get(id));
    if (!turn || !isOpen(turn.status)) continue;
    const conversation = await deps.store.conversations.get(turn.conversationId);
    if (!conversation || (query.channelId && conversation.channelId !== query.channelId)) continue;
    if (!(await mayStop(deps, turn, query.viewer))) continue;
    const threadLink = await deps.slack
      .permalink(conversation.channelId, conversation.threadTs)
      .catch(() => undefined);
    listed.push({ turnId: turn.id, status: turn.status, requestedBy: turn.requestedBy, threadLink });
  }
  return listed;
}

function isOpen(status: Turn['status']): status is StoppableTurn['status'] {
  return status === 'running' || status === 'awaiting_approval';
}
