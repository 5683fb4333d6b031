import { type NewOutboxEntry, outboxKeys, PLAN_MAX_REQUESTS } from '../store/outbox-message.js';
import type { Approval, Turn } from '../store/records.js';
import { isQuestion } from './person-question.js';

/**
 * The outbox rows that show a turn's undecided requests. The thread sees the whole batch first: calls
 * that wait together as one plan's card (one card per call past the plan's limit); the approvers'
 * copies follow, one per request, in the same commit.
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
  const [first] = pending;
  const plan =
    first && pending.length >= 2 && pending.length <= PLAN_MAX_REQUESTS
      ? [
          entry(first, outboxKeys.plan(first.requestId), {
            type: 'approval-plan',
            requestIds: pending.map((approval) => approval.requestId),
          }),
        ]
      : undefined;
  return [
    ...(plan ??
      pending.map((approval) =>
        entry(approval, outboxKeys.card(approval.requestId), {
          type: 'approval-card',
          requestId: approval.requestId,
        }),
      )),
    // A question is its requester's alone: no approver gets a copy.
    ...(options.approverCopies ? pending.filter((approval) => !isQuestion(approval)) : []).map((approval) =>
      entry(approval, outboxKeys.approverCopy(approval.requestId, 'request'), {
        type: 'approver-copy',
        requestId: approval.requestId,
        occasion: 'request',
      }),
    ),
  ];
}
