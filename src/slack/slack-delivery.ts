import type { Logger } from 'pino';
import { z } from 'zod';
import type { Policy } from '../approvals/policy.js';
import { DeliveryError, type DeliveryPort } from '../outbox/delivery-port.js';
import type { OutboxEntry, SentPart } from '../outbox/outbox-message.js';
import type { Redact } from '../secrets/index.js';
import type { Approval, Conversation } from '../store/records.js';
import type { Store } from '../store/store.js';
import {
  buildApprovalCard,
  buildDecidedCard,
  buildDirectNotice,
  buildGrantNotice,
  buildThreadNotice,
  type SlackMessage,
} from './blocks/index.js';
import { describeFailure } from './describe-failure.js';
import { outcomeOf, presentApproval } from './present-approval.js';
import { SlackApiError } from './slack-errors.js';
import type { SlackPort } from './slack-port.js';
import { capAnswer } from './text/cap-answer.js';
import { answerMessage, markdownToMrkdwn, planAnswerMessages } from './text/index.js';

export interface SlackDeliveryDeps {
  readonly slack: SlackPort;
  readonly store: Store;
  readonly policy: Policy;
  readonly logger: Logger;
  /** The configured secrets and credential patterns, applied to answers before they become mrkdwn. */
  readonly redact: Redact;
  readonly now?: () => number;
}

const answerPart = z.array(z.string());
const cardPart = z.object({ channel: z.string(), ts: z.string() });

/** Card rewrites find nothing to rewrite when the card is gone: that rewrite is done, not failed. */
const goneMessage = new Set(['message_not_found', 'cant_update_message', 'channel_not_found', 'is_archived']);

/**
 * The outbox, delivered to Slack. Cards are rendered from the request's state when they are sent;
 * answers are cut into messages once, at the first attempt. Every post carries its part's key in its
 * metadata, so a post whose answer a crash lost is found in the thread instead of posted again.
 */
export function createSlackDelivery(deps: SlackDeliveryDeps): DeliveryPort {
  const { slack, store, policy } = deps;
  const now = deps.now ?? Date.now;
  // A 429 pauses the whole method, not just the row that hit it: the others would only hit it too.
  const pausedUntil = new Map<string, number>();

  const conversationOf = async (conversationId: string): Promise<Conversation> => {
    const conversation = await store.conversations.get(conversationId);
    if (!conversation) throw new DeliveryError('conversation_missing', { type: 'undeliverable' });
    return conversation;
  };
  const approvalOf = async (requestId: string): Promise<Approval> => {
    const approval = await store.approvals.get(requestId);
    if (!approval) throw new DeliveryError('approval_missing', { type: 'undeliverable' });
    return approval;
  };

  const slackCall = async <Result>(method: string, work: () => Promise<Result>): Promise<Result> => {
    const paused = (pausedUntil.get(method) ?? 0) - now();
    if (paused > 0) throw new DeliveryError('ratelimited', { type: 'retry', afterMs: paused });
    try {
      return await work();
    } catch (error) {
      throw toDeliveryError(method, error, (until) => pausedUntil.set(method, until), now);
    }
  };

  /** Posts part `index` of `entry` in a thread, unless an earlier attempt already did. */
  const postOnce = async (
    entry: OutboxEntry,
    index: number,
    inDoubt: boolean,
    target: { channel: string; threadTs?: string; oldest?: string },
    message: SlackMessage,
  ): Promise<SentPart> => {
    const deliveryKey = `${entry.key}#${index}`;
    if (inDoubt) {
      const found = await slackCall('conversations.replies', () =>
        slack.findDelivery({
          channel: target.channel,
          threadTs: target.threadTs,
          oldest: target.oldest,
          deliveryKey,
        }),
      ).catch(stillInDoubt);
      if (found) {
        deps.logger.info({ key: deliveryKey, ts: found.ts }, 'found a delivery a crash left unrecorded');
        return found;
      }
    }
    const posted = await slackCall('chat.postMessage', () =>
      slack.postMessage({ channel: target.channel, threadTs: target.threadTs, deliveryKey, ...message }),
    );
    return { channel: posted.channel, ts: posted.ts };
  };

  const renderCard = (approval: Approval, conversation: Conversation): SlackMessage => {
    const view = presentApproval(approval, { policy, channelId: conversation.channelId });
    const outcome = outcomeOf(approval);
    return outcome ? buildDecidedCard(view, outcome) : buildApprovalCard(view);
  };

  return {
    async plan(entry) {
      const message = entry.message;
      switch (message.type) {
        case 'approval-card':
        case 'turn-notice':
        case 'direct-message':
          return ['message'];
        case 'card-update': {
          const approval = await approvalOf(message.requestId);
          return approval.cards.map((card) => JSON.stringify(card));
        }
        case 'answer':
          return planAnswerMessages(capAnswer(markdownToMrkdwn(deps.redact(message.text)))).map((chunks) =>
            JSON.stringify(chunks),
          );
      }
    },

    async sendPart(entry, part) {
      const message = entry.message;
      switch (message.type) {
        case 'approval-card': {
          const [approval, conversation] = await Promise.all([
            approvalOf(message.requestId),
            conversationOf(entry.conversationId),
          ]);
          return postOnce(
            entry,
            part.index,
            part.inDoubt,
            { channel: conversation.channelId, threadTs: conversation.threadTs },
            renderCard(approval, conversation),
          );
        }
        case 'card-update': {
          const card = cardPart.parse(JSON.parse(part.content));
          const [approval, conversation] = await Promise.all([
            approvalOf(message.requestId),
            conversationOf(entry.conversationId),
          ]);
          try {
            // Rewriting is idempotent: a card rewritten twice shows the same state.
            await slackCall('chat.update', () =>
              slack.updateMessage({
                channel: card.channel,
                ts: card.ts,
                ...renderCard(approval, conversation),
              }),
            );
          } catch (error) {
            if (!(error instanceof DeliveryError && goneMessage.has(error.reason))) throw error;
            deps.logger.info({ requestId: approval.requestId, card }, 'a card to rewrite is gone');
          }
          return card;
        }
        case 'answer': {
          const conversation = await conversationOf(entry.conversationId);
          return postOnce(
            entry,
            part.index,
            part.inDoubt,
            { channel: conversation.channelId, threadTs: conversation.threadTs },
            answerMessage(answerPart.parse(JSON.parse(part.content))),
          );
        }
        case 'turn-notice': {
          const conversation = await conversationOf(entry.conversationId);
          const notice =
            message.notice.type === 'grant-used'
              ? buildGrantNotice(message.notice)
              : buildThreadNotice({ type: 'failed', detail: describeFailure(message.notice) });
          return postOnce(
            entry,
            part.index,
            part.inDoubt,
            { channel: conversation.channelId, threadTs: conversation.threadTs },
            notice,
          );
        }
        case 'direct-message': {
          const channel = part.inDoubt
            ? await slackCall('conversations.open', () => slack.openDirectMessage(message.userId)).catch(
                stillInDoubt,
              )
            : message.userId;
          return postOnce(
            entry,
            part.index,
            part.inDoubt,
            // Slack ts values are seconds; a minute of slack covers clock skew between us and Slack.
            { channel, oldest: String(Math.floor((entry.createdAt - 60_000) / 1_000)) },
            buildDirectNotice(message.notice),
          );
        }
      }
    },
  };
}

/** A failure while looking for an earlier attempt's part: whether it landed is still unknown. */
function stillInDoubt(error: unknown): never {
  throw error instanceof DeliveryError
    ? new DeliveryError(error.reason, error.disposition, { cause: error, mayHaveLanded: true })
    : error;
}

function toDeliveryError(
  method: string,
  error: unknown,
  pause: (until: number) => void,
  now: () => number,
): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof SlackApiError) {
    if (error.retryAfterMs !== undefined) {
      pause(now() + error.retryAfterMs);
      return new DeliveryError(
        'ratelimited',
        { type: 'retry', afterMs: error.retryAfterMs },
        { cause: error, mayHaveLanded: !error.refused },
      );
    }
    if (error.permanent)
      return new DeliveryError(
        error.slackError,
        { type: 'undeliverable' },
        { cause: error, mayHaveLanded: !error.refused },
      );
    return new DeliveryError(
      error.slackError,
      { type: 'retry' },
      { cause: error, mayHaveLanded: !error.refused },
    );
  }
  return new DeliveryError(
    `${method}: ${error instanceof Error ? error.message : String(error)}`,
    { type: 'retry' },
    { cause: error, mayHaveLanded: true },
  );
}
