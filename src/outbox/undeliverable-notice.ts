import { type NewOutboxEntry, type OutboxEntry, outboxKeys } from '../store/outbox-message.js';
import type { Store } from '../store/store.js';

/** The requester hears, in a direct message, what could not reach the thread and what to do. */
export async function undeliverableNotice(
  store: Store,
  entry: OutboxEntry,
  reason: string,
): Promise<NewOutboxEntry[]> {
  // A copy that could not reach an approver's DM leaves the thread's card: nothing the requester must do.
  if (
    entry.message.type === 'direct-message' ||
    entry.message.type === 'approver-copy' ||
    entry.turnId === null
  )
    return [];
  const [turn, conversation] = await Promise.all([
    store.turns.get(entry.turnId),
    store.conversations.get(entry.conversationId),
  ]);
  if (!turn || !conversation) return [];
  return [
    {
      key: outboxKeys.undeliverable(entry.key),
      conversationId: entry.conversationId,
      turnId: entry.turnId,
      requestId: entry.requestId ?? undefined,
      message: {
        type: 'direct-message',
        userId: turn.requestedBy,
        notice: {
          type: 'undeliverable',
          // A plan is an approval card for the requester: the same words, the same way to decide it.
          what: entry.message.type === 'approval-plan' ? 'approval-card' : entry.message.type,
          channelId: conversation.channelId,
          reason,
          requestId: entry.requestId ?? undefined,
          turnId: entry.turnId,
        },
      },
    },
  ];
}
