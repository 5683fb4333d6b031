import type { Logger } from 'pino';
import type { TurnOutcome } from '../agent/turn-runner.js';
import type { TurnObserver } from '../runtime/turn-observer.js';
import type { Conversation, Turn } from '../store/records.js';
import type { Store } from '../store/store.js';
import type { SlackPort } from './slack-port.js';

/** Reactions on the message that started the turn: the thread's status at a glance. */
export const statusReactions = {
  working: 'hourglass_flowing_sand',
  awaiting: 'raised_hand',
  done: 'white_check_mark',
  failed: 'x',
} as const;

export interface SlackTurnObserverDeps {
  readonly slack: SlackPort;
  readonly store: Store;
  readonly logger: Logger;
}

/**
 * The thread's status while a turn runs: reactions and the assistant status line. Cards, answers and
 * notices are not here: they go through the outbox, which posts each of them once.
 */
export function createSlackTurnObserver(deps: SlackTurnObserverDeps): TurnObserver {
  const { slack, store, logger } = deps;

  const conversationOf = async (conversationId: string): Promise<Conversation> => {
    const conversation = await store.conversations.get(conversationId);
    if (!conversation) throw new Error(`no conversation ${conversationId}`);
    return conversation;
  };

  // Status is decoration: a failed reaction never affects the turn.
  const react = async (conversation: Conversation, turn: Turn, add: string | undefined, remove: string[]) => {
    for (const name of remove) {
      await slack
        .removeReaction({ channel: conversation.channelId, ts: turn.triggerTs, name })
        .catch((error: unknown) => {
          logger.debug({ err: error, name }, 'could not remove status reaction');
        });
    }
    if (add) {
      await slack
        .addReaction({ channel: conversation.channelId, ts: turn.triggerTs, name: add })
        .catch((error: unknown) => {
          logger.debug({ err: error, name: add }, 'could not add status reaction');
        });
    }
  };

  const assistantStatus = async (conversation: Conversation, status: string) => {
    if (!conversation.channelId.startsWith('D')) return;
    await slack.setAssistantStatus({
      channel: conversation.channelId,
      threadTs: conversation.threadTs,
      status,
    });
  };

  return {
    async turnStarting(turn) {
      const conversation = await conversationOf(turn.conversationId);
      const remove = turn.status === 'awaiting_approval' ? [statusReactions.awaiting] : [];
      await react(conversation, turn, statusReactions.working, remove);
      await assistantStatus(conversation, 'is working on it…');
    },

    async turnSettled(outcome: TurnOutcome) {
      switch (outcome.type) {
        case 'completed': {
          const conversation = await conversationOf(outcome.turn.conversationId);
          await react(conversation, outcome.turn, statusReactions.done, [statusReactions.working]);
          await assistantStatus(conversation, '');
          return;
        }
        case 'awaiting-approval': {
          const conversation = await conversationOf(outcome.turn.conversationId);
          await react(conversation, outcome.turn, statusReactions.awaiting, [statusReactions.working]);
          await assistantStatus(conversation, 'is waiting for an approval…');
          return;
        }
        case 'failed': {
          const conversation = await conversationOf(outcome.turn.conversationId);
          await react(conversation, outcome.turn, statusReactions.failed, [statusReactions.working]);
          await assistantStatus(conversation, '');
          return;
        }
        case 'not-claimed':
        case 'interrupted':
          return;
      }
    },

    async deliveryFailed(entry) {
      // The answer never reached the thread: the request message must not say it is done.
      if (entry.message.type !== 'answer' || entry.turnId === null) return;
      const turn = await store.turns.get(entry.turnId);
      if (!turn) return;
      const conversation = await conversationOf(turn.conversationId);
      await react(conversation, turn, statusReactions.failed, [statusReactions.done]);
    },
  };
}
