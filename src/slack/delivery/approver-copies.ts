import type { Logger } from 'pino';
import { z } from 'zod';
import type { EffectsOf } from '../../agent/tool.js';
import { type ApproverReach, copyRecipients } from '../../approvals/approver-reach.js';
import { refusalFor } from '../../approvals/decide-approval.js';
import type { Policy } from '../../approvals/policy.js';
import { DeliveryError } from '../../outbox/delivery-port.js';
import type { ThreadKey } from '../../store/conversation-id.js';
import type { ApproverCopyOccasion, OutboxEntry, SentPart } from '../../store/outbox-message.js';
import type { Approval } from '../../store/records.js';
import { outcomeOf, presentApproval } from '../approvals/present-approval.js';
import { buildApproverCopy, buildDecidedCard, type SlackMessage } from '../blocks/index.js';
import { SlackApiError } from '../web-api/slack-errors.js';
import type { SlackPort } from '../web-api/slack-port.js';

export interface ApproverCopiesDeps {
  readonly slack: SlackPort;
  readonly policy: Policy;
  readonly reach: ApproverReach;
  /** Where calls run, by tool, for what the copies say. */
  readonly effectsOf?: EffectsOf;
  readonly logger: Logger;
  readonly approvalOf: (requestId: string) => Promise<Approval>;
  /** Where the request's thread is (undeliverable if the id names none). */
  readonly threadAt: (conversationId: string) => ThreadKey;
  /** The delivery's Slack call wrapper: failures become `DeliveryError`s, 429s pause the method. */
  readonly slackCall: <Result>(method: string, work: () => Promise<Result>) => Promise<Result>;
  /** Posts a part once, looking for an earlier attempt's post first when in doubt. */
  readonly postOnce: (
    entry: OutboxEntry,
    index: number,
    inDoubt: boolean,
    target: { channel: string; oldest?: string },
    message: SlackMessage,
    deliveryKey: string,
  ) => Promise<SentPart>;
}

/** One part of an approver-copy row: the person and their DM with the app. */
const copyPart = z.object({ user: z.string(), channel: z.string() });

/**
 * Copies of a request's card in approvers' direct messages. The recipients and their DM channels are
 * looked up when the row is planned and kept with it once a copy is sent, so a retry reaches the same
 * people and posts nobody a second copy. A person Slack will not open a DM with is left out, not retried.
 */
export function createApproverCopies(deps: ApproverCopiesDeps) {
  const { slack, policy, reach, logger } = deps;

  const render = async (
    approval: Approval,
    thread: ThreadKey,
    occasion: ApproverCopyOccasion,
    viewer?: string,
  ) => {
    const threadLink = await slack.permalink(thread.channelId, thread.threadTs);
    const view = presentApproval(approval, {
      policy,
      channelId: thread.channelId,
      threadLink,
      effectsOf: deps.effectsOf,
      // A copy is one person's: an escalation can reach someone who may not decide, who sees no buttons.
      ...(viewer === undefined ? {} : { viewerMay: await viewerMay(approval, viewer) }),
    });
    const outcome = outcomeOf(approval);
    return outcome ? buildDecidedCard(view, outcome) : buildApproverCopy(view, occasion);
  };

  const groupMembersOf =
    (requestId: string) =>
    async (group: string): Promise<readonly string[]> => {
      try {
        return await deps.slackCall('usergroups.users.list', () => slack.groupMembers(group));
      } catch (error) {
        if (!refusedBySlack(error)) throw error;
        logger.warn({ requestId, group, reason: error.reason }, 'cannot list a group to copy a request to');
        return [];
      }
    };

  /** The same check that refuses a click: the buttons a copy shows are the ones its reader may press. */
  const viewerMay = async (approval: Approval, viewer: string) => {
    const directory = { groupMembers: groupMembersOf(approval.requestId) };
    if ((await refusalFor({ policy, directory }, approval, viewer, 'allow')) === undefined)
      return 'decide' as const;
    return (await refusalFor({ policy, directory }, approval, viewer, 'deny')) === undefined
      ? ('withdraw' as const)
      : ('watch' as const);
  };

  return {
    async plan(requestId: string, occasion: ApproverCopyOccasion): Promise<string[]> {
      const approval = await deps.approvalOf(requestId);
      // Decided before its copies went out (a reminder written just before the click): nobody needs one.
      if (approval.decision !== null) return [];
      const groupMembers = groupMembersOf(requestId);
      const users = await copyRecipients({ policy, reach, groupMembers }, approval, occasion);
      const parts: string[] = [];
      for (const user of users) {
        try {
          const channel = await deps.slackCall('conversations.open', () => slack.openDirectMessage(user));
          parts.push(JSON.stringify({ user, channel }));
        } catch (error) {
          if (!refusedBySlack(error)) throw error;
          logger.warn(
            { requestId, user, reason: error.reason },
            'cannot reach an approver by direct message',
          );
        }
      }
      return parts;
    },

    async send(
      entry: OutboxEntry,
      message: { requestId: string; occasion: ApproverCopyOccasion },
      part: { index: number; content: string; inDoubt: boolean },
    ): Promise<SentPart> {
      const { user, channel } = copyPart.parse(JSON.parse(part.content));
      const thread = deps.threadAt(entry.conversationId);
      const approval = await deps.approvalOf(message.requestId);
      return deps.postOnce(
        entry,
        part.index,
        // A retry that found nothing sent plans afresh, and the people may come in another order then:
        // each copy is keyed by its person, and looked for in their DM whenever the row is in doubt.
        part.inDoubt || entry.inDoubt,
        // Slack ts values are seconds; a minute of slack covers clock skew between us and Slack.
        { channel, oldest: String(Math.floor((entry.createdAt - 60_000) / 1_000)) },
        await render(approval, thread, message.occasion, user),
        `${entry.key}#${user}`,
      );
    },

    /** A copy rewritten to the request's state: pending (a vote counted) or decided. */
    rewrite: (approval: Approval, thread: ThreadKey) => render(approval, thread, 'request'),
  };
}

/**
 * Slack answered and said no (`user_not_found`, `cannot_dm_bot`, a missing scope): asking again will not
 * change that, and the thread's card still reaches everyone, so that person or group is left out rather
 * than holding up the thread's later messages. A rate limit, or no answer at all, is tried again.
 */
function refusedBySlack(error: unknown): error is DeliveryError {
  return (
    error instanceof DeliveryError &&
    error.cause instanceof SlackApiError &&
    error.cause.refused &&
    error.cause.retryAfterMs === undefined
  );
}
