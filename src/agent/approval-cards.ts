import { type NewOutboxEntry, outboxKeys } from '../outbox/outbox-message.js';
import type { Approval, Turn } from '../store/records.js';

/**
 * The outbox rows that show a turn's undecided requests. The thread sees the whole batch first; the
 * approvers' copies follow, in the same commit.
 */
export function approvalCards(
  turn: Turn,
  approvals: readonly Approval[],
  options: { readonly approverCopies: boolean | undefined },
): NewOutboxEntry[] {
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
    ...(options.approverCopies ? pending : []).map((approval) =>
      entry(approval, outboxKeys.approverCopy(approval.requestId, 'request'), {
        type: 'approver-copy',
        requestId: approval.requestId,
        occasion: 'request',
      }),
    ),
  ];
}
