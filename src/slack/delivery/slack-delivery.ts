import type { Logger } from 'pino';
import { z } from 'zod';
import type { EffectsOf } from '../../agent/tool.js';
import { type ApproverReach, noReach } from '../../approvals/approver-reach.js';
import type { Policy } from '../../approvals/policy.js';
import { DeliveryError, type DeliveryPort } from '../../outbox/delivery-port.js';
import type { Redact } from '../../secrets/index.js';
import { type ThreadKey, threadOf } from '../../store/conversation-id.js';
import type { OutboxEntry, SentPart } from '../../store/outbox-message.js';
import type { Approval } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { outcomeOf, presentApproval, presentQuestion } from '../approvals/present-approval.js';
import {
  buildAnsweredQuestionCard,
  buildApprovalCard,
  buildDecidedCard,
  buildDirectNotice,
  buildGrantNotice,
  buildPlanCard,
  buildQuestionCard,
  buildThreadNotice,
  type SlackMessage,
} from '../blocks/index.js';
import { allowedMentions, linkAllowedNames } from '../intake/own-mentions.js';
import { capAnswer } from '../text/cap-answer.js';
import { answerMessage, markdownToMrkdwn, mentionUser, planAnswerMessages } from '../text/index.js';
import { withoutModelNotes } from '../text/without-model-notes.js';
import type { LiveAnswers } from '../turn-view/live-answers.js';
import type { SlackPort } from '../web-api/slack-port.js';
import { createApproverCopies } from './approver-copies.js';
import { describeFailure } from './describe-failure.js';
import { createReplaceLiveAnswer } from './replace-live-answer.js';
import { goneMessage, stillInDoubt, toDeliveryError } from './to-delivery-error.js';

export interface SlackDeliveryDeps {
  readonly slack: SlackPort;
  readonly store: Store;
  readonly policy: Policy;
  readonly logger: Logger;
  /** The configured secrets and credential patterns, applied to answers before they become mrkdwn. */
  readonly redact: Redact;
  /** The live messages of running turns: an answer replaces its turn's instead of posting anew. */
  readonly live?: LiveAnswers;
  /** Who gets copies of a request in their direct messages; nobody when absent. */
  readonly reach?: ApproverReach;
  /** Where calls run, by tool, for what cards say; cards leave it out when absent. */
  readonly effectsOf?: EffectsOf;
}

const answerPart = z.array(z.string());
const noPings: ReadonlySet<string> = new Set();
const cardPart = z.object({ channel: z.string(), ts: z.string() });

/**
 * The outbox, delivered to Slack. Cards are rendered from the request's state when they are sent;
 * answers are cut into messages once, at the first attempt. Every post carries its part's key in its
 * metadata, so a post whose answer a crash lost is found in the thread instead of posted again.
 */
export function createSlackDelivery(deps: SlackDeliveryDeps): DeliveryPort {
  const { slack, store, policy } = deps;
  const threadAt = (conversationId: string): ThreadKey => {
    const thread = threadOf(conversationId);
    if (!thread) throw new DeliveryError('conversation_unknown', { type: 'undeliverable' });
    return thread;
  };
  const approvalOf = async (requestId: string): Promise<Approval> => {
    const approval = await store.approvals.get(requestId);
    if (!approval) throw new DeliveryError('approval_missing', { type: 'undeliverable' });
    return approval;
  };

  // A 429 pauses the whole method, not just the row that hit it: the port fails the others at once
  // (see SlackRateLimits), and each is tried again once the method's pause has passed.
  const slackCall = async <Result>(method: string, work: () => Promise<Result>): Promise<Result> => {
    try {
      return await work();
    } catch (error) {
      throw toDeliveryError(method, error);
    }
  };

  /** Posts part `index` of `entry` in a thread, unless an earlier attempt already did. */
  const postOnce = async (
    entry: OutboxEntry,
    index: number,
    inDoubt: boolean,
    target: { channel: string; threadTs?: string; oldest?: string },
    message: SlackMessage,
    deliveryKey = `${entry.key}#${index}`,
  ): Promise<SentPart> => {
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

  const replaceLive = createReplaceLiveAnswer({
    slack,
    store,
    logger: deps.logger,
    live: deps.live,
    slackCall,
  });

  const copies = createApproverCopies({
    slack,
    policy,
    effectsOf: deps.effectsOf,
    reach: deps.reach ?? noReach,
    logger: deps.logger,
    approvalOf,
    threadAt,
    slackCall,
    postOnce,
  });

  const present = (approval: Approval, thread: ThreadKey) =>
    presentApproval(approval, { policy, channelId: thread.channelId, effectsOf: deps.effectsOf });
  const renderCard = (approval: Approval, thread: ThreadKey): SlackMessage => {
    const outcome = outcomeOf(approval);
    const question = presentQuestion(approval);
    if (question) return outcome ? buildAnsweredQuestionCard(question, outcome) : buildQuestionCard(question);
    const view = present(approval, thread);
    return outcome ? buildDecidedCard(view, outcome) : buildApprovalCard(view);
  };
  const renderPlan = (approvals: readonly Approval[], thread: ThreadKey): SlackMessage =>
    buildPlanCard(
      approvals.map((approval) => ({ view: present(approval, thread), outcome: outcomeOf(approval) })),
    );
  /** The requests a thread's card shows: the plan's, when the message is the card of several. */
  const cardRequests = async (approval: Approval, card: { channel: string; ts: string }) => {
    const siblings = await store.approvals.forTurn(approval.turnId);
    const onCard = siblings.filter((sibling) =>
      sibling.cards.some((other) => other.channel === card.channel && other.ts === card.ts),
    );
    return onCard.length > 1 ? onCard : [approval];
  };

  return {
    async plan(entry) {
      const message = entry.message;
      switch (message.type) {
        case 'approval-card':
        case 'approval-plan':
        case 'turn-notice':
        case 'direct-message':
          return ['message'];
        case 'card-update': {
          const approval = await approvalOf(message.requestId);
          return approval.cards.map((card) => JSON.stringify(card));
        }
        case 'approver-copy':
          return copies.plan(message.requestId, message.occasion);
        case 'answer': {
          // The answer is model output: it notifies only the person who asked and the people they
          // mentioned themselves, never a group, a broadcast or anyone the model picked up elsewhere.
          const turn = message.turnId ? await store.turns.get(message.turnId) : undefined;
          const allowed = turn
            ? await allowedMentions(turn, (userId) => slack.userName(userId))
            : { ids: noPings, names: new Map<string, string>() };
          const text = linkAllowedNames(deps.redact(withoutModelNotes(message.text)), allowed);
          return planAnswerMessages(capAnswer(markdownToMrkdwn(text, { allowedPings: allowed.ids }))).map(
            (chunks) => JSON.stringify(chunks),
          );
        }
      }
    },

    async sendPart(entry, part) {
      const message = entry.message;
      switch (message.type) {
        case 'approval-card': {
          const thread = threadAt(entry.conversationId);
          const approval = await approvalOf(message.requestId);
          return postOnce(
            entry,
            part.index,
            part.inDoubt,
            { channel: thread.channelId, threadTs: thread.threadTs },
            renderCard(approval, thread),
          );
        }
        case 'approval-plan': {
          const thread = threadAt(entry.conversationId);
          const approvals = await Promise.all(message.requestIds.map(approvalOf));
          return postOnce(
            entry,
            part.index,
            part.inDoubt,
            { channel: thread.channelId, threadTs: thread.threadTs },
            renderPlan(approvals, thread),
          );
        }
        case 'card-update': {
          const card = cardPart.parse(JSON.parse(part.content));
          const thread = threadAt(entry.conversationId);
          const approval = await approvalOf(message.requestId);
          // A card outside the request's channel is a copy in someone's DM: it keeps reading as one. A
          // plan's card is rewritten whole, with every call's state.
          const shown = card.channel === thread.channelId ? await cardRequests(approval, card) : [];
          const rendered =
            shown.length > 1
              ? renderPlan(shown, thread)
              : card.channel === thread.channelId
                ? renderCard(approval, thread)
                : await copies.rewrite(approval, thread);
          try {
            // Rewriting is idempotent: a card rewritten twice shows the same state.
            await slackCall('chat.update', () =>
              slack.updateMessage({ channel: card.channel, ts: card.ts, ...rendered }),
            );
          } catch (error) {
            if (!(error instanceof DeliveryError && goneMessage.has(error.reason))) throw error;
            deps.logger.info({ requestId: approval.requestId, card }, 'a card to rewrite is gone');
          }
          return card;
        }
        case 'approver-copy':
          return copies.send(entry, message, part);
        case 'answer': {
          const thread = threadAt(entry.conversationId);
          if (part.index === 0) {
            const replaced = await replaceLive(
              entry,
              message.turnId,
              answerPart.parse(JSON.parse(part.content)),
            );
            if (replaced) return replaced;
          }
          return postOnce(
            entry,
            part.index,
            part.inDoubt,
            { channel: thread.channelId, threadTs: thread.threadTs },
            answerMessage(answerPart.parse(JSON.parse(part.content))),
          );
        }
        case 'turn-notice': {
          const thread = threadAt(entry.conversationId);
          const notice =
            message.notice.type === 'stopped'
              ? stoppedNotice(message.notice.by)
              : message.notice.type === 'grant-used'
                ? buildGrantNotice(message.notice)
                : message.notice.type === 'tool-changed'
                  ? buildThreadNotice({
                      type: 'refused',
                      detail: toolChangedDetail(message.notice.tool, message.notice.changed),
                    })
                  : buildThreadNotice({ type: 'failed', detail: describeFailure(message.notice) });
          return postOnce(
            entry,
            part.index,
            part.inDoubt,
            { channel: thread.channelId, threadTs: thread.threadTs },
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

/** The mention is the person who pressed Stop, so it is kept as a mention (the rest is our own text). */
function stoppedNotice(userId: string): SlackMessage {
  const text = `⏹️ Stopped by ${mentionUser(userId)}.`;
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** Plain text: `buildThreadNotice` escapes it. */
function toolChangedDetail(tool: string, changed: string | undefined): string {
  // Rows written before a request could be shown again say only that it changed.
  if (changed === undefined) {
    return (
      `The server behind ${tool} changed that tool after approval was asked for, so this request can no ` +
      'longer be allowed: what the card shows is not what would run. Deny it, and ask again to see the tool as it is now.'
    );
  }
  return (
    `The server behind ${tool} changed that tool after approval was asked for (${changed}), so approvals ` +
    'given so far no longer count. The request is shown again below, for the tool as it is now: check it, then decide.'
  );
}
