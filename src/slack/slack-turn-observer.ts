import type { Logger } from 'pino';
import type { TurnOutcome } from '../agent/turn-runner.js';
import type { Policy } from '../approvals/policy.js';
import type { TurnObserver } from '../runtime/turn-observer.js';
import type { Redact } from '../secrets/index.js';
import type { Approval, Conversation, Turn } from '../store/records.js';
import type { Store } from '../store/store.js';
import { buildApprovalCard, buildDecidedCard, buildThreadNotice } from './blocks/index.js';
import { describeFailure } from './describe-failure.js';
import { outcomeOf, presentApproval } from './present-approval.js';
import { SlackApiError } from './slack-errors.js';
import type { SlackPort } from './slack-port.js';
import { buildAnswerMessages, markdownToMrkdwn } from './text/index.js';

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
  readonly policy: Policy;
  readonly logger: Logger;
  /** Removes configured secrets and credentials from the answer before it is turned into mrkdwn. */
  readonly redact: Redact;
}

/** Tells the thread what the runtime did: reactions, approval cards, answers, failures. */
export function createSlackTurnObserver(deps: SlackTurnObserverDeps): TurnObserver {
  const { slack, store, policy, logger, redact } = deps;

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

  const postCard = async (approval: Approval) => {
    const conversation = await conversationOf(approval.conversationId);
    const card = buildApprovalCard(presentApproval(approval, { policy, channelId: conversation.channelId }));
    const posted = await slack.postMessage({
      channel: conversation.channelId,
      threadTs: conversation.threadTs,
      ...card,
    });
    await store.approvals.attachCard(approval.requestId, conversation.channelId, posted.ts);
  };

  /** True when the answer reached the thread; false when the thread cannot take it (and never will). */
  const deliverAnswer = async (turn: Turn, answer: string): Promise<boolean> => {
    const conversation = await conversationOf(turn.conversationId);
    let delivered = true;
    try {
      for (const message of buildAnswerMessages(markdownToMrkdwn(redact(answer)))) {
        await slack.postMessage({
          channel: conversation.channelId,
          threadTs: conversation.threadTs,
          ...message,
        });
      }
    } catch (error) {
      // Transient failures are retried by the sweep; a thread that cannot take messages is given up on.
      if (!(error instanceof SlackApiError && error.permanent)) throw error;
      delivered = false;
      logger.error(
        { err: error, turnId: turn.id, channel: conversation.channelId },
        `the answer cannot be posted to this thread: ${explainUndeliverable(error.slackError)}`,
      );
      await tellRequester(turn, conversation, error);
    }
    await store.turns.markAnswerPosted(turn.id);
    await assistantStatus(conversation, '');
    return delivered;
  };

  // The requester is waiting in a thread holdfast can no longer write to: a direct message says why.
  const tellRequester = async (turn: Turn, conversation: Conversation, error: SlackApiError) => {
    const text =
      `holdfast finished your request in <#${conversation.channelId}> but could not post the answer there: ` +
      `${explainUndeliverable(error.slackError)}`;
    await slack.postMessage({ channel: turn.requestedBy, text }).catch((dmError: unknown) => {
      logger.warn({ err: dmError, turnId: turn.id }, 'could not tell the requester by direct message');
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
          const delivered = await deliverAnswer(outcome.turn, outcome.answer);
          await react(conversation, outcome.turn, delivered ? statusReactions.done : statusReactions.failed, [
            statusReactions.working,
          ]);
          return;
        }
        case 'awaiting-approval': {
          const conversation = await conversationOf(outcome.turn.conversationId);
          await react(conversation, outcome.turn, statusReactions.awaiting, [statusReactions.working]);
          await assistantStatus(conversation, 'is waiting for an approval…');
          await postCard(outcome.approval);
          return;
        }
        case 'failed': {
          const conversation = await conversationOf(outcome.turn.conversationId);
          await react(conversation, outcome.turn, statusReactions.failed, [statusReactions.working]);
          await assistantStatus(conversation, '');
          const notice = buildThreadNotice({ type: 'failed', detail: describeFailure(outcome.error.code) });
          await slack.postMessage({
            channel: conversation.channelId,
            threadTs: conversation.threadTs,
            ...notice,
          });
          return;
        }
        case 'not-claimed':
        case 'interrupted':
          return;
      }
    },

    approvalNeedsCard: postCard,

    async approvalExpired(approval) {
      const outcome = outcomeOf(approval);
      if (!approval.cardChannel || !approval.cardTs || !outcome) return;
      const conversation = await conversationOf(approval.conversationId);
      const card = buildDecidedCard(
        presentApproval(approval, { policy, channelId: conversation.channelId }),
        outcome,
      );
      await slack.updateMessage({ channel: approval.cardChannel, ts: approval.cardTs, ...card });
    },

    async answerNeedsDelivery(turn) {
      const answer = await store.transcript.finalAnswer(turn.id);
      if (answer === undefined) {
        await store.turns.markAnswerPosted(turn.id);
        return;
      }
      await deliverAnswer(turn, answer);
    },
  };
}

/** Slack's reason, in words that say what to do about it. */
function explainUndeliverable(slackError: string): string {
  switch (slackError) {
    case 'not_in_channel':
      return 'holdfast is not a member of that channel. Invite it with `/invite @holdfast` and ask again.';
    case 'channel_not_found':
      return 'the channel no longer exists, or holdfast cannot see it.';
    case 'is_archived':
      return 'the channel is archived.';
    case 'restricted_action':
      return 'the workspace does not let holdfast post there.';
    default:
      return `Slack refused the message (${slackError}).`;
  }
}
