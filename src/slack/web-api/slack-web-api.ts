import type { HomeView, KnownBlock } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from 'pino';
import { z } from 'zod';
import { type Redact, redactKnownPatterns, redactStrings } from '../../secrets/index.js';
import { type CallPriority, SlackRateLimits } from '../rate-limits/index.js';
import { createConversationMembers } from './conversation-members.js';
import { createDeliveryKeyAt, createFindDelivery, deliveryEventType } from './find-delivery.js';
import { SlackApiError } from './slack-errors.js';
import { createSlackLookups, type SlackLookups } from './slack-lookups.js';
import type { OutgoingMessage, SlackPort } from './slack-port.js';
import { createSlackStreams } from './slack-streams.js';
import { createSlackThreadStatus } from './slack-thread-status.js';
import { toSlackApiError } from './to-slack-api-error.js';

export { deliveryEventType } from './find-delivery.js';
export { toSlackApiError } from './to-slack-api-error.js';

export interface SlackWebApiOptions {
  readonly client: WebClient;
  readonly logger: Logger;
  /** How long user names and group memberships are trusted (when the port keeps its own lookups). */
  readonly cacheTtlMs?: number;
  /** Names, groups, DM channels and links, shared with the process's other ports (see `SlackLookups`). */
  readonly lookups?: SlackLookups;
  /** How long channel member lists are trusted (they decide who sees which records). */
  readonly membersTtlMs?: number;
  /**
   * Applied to every string holdfast sends to be shown (message text, blocks, views): the last gate
   * before Slack, so no builder can forget it. Defaults to the credential patterns alone.
   */
  readonly redact?: Redact;
  /** Told of every failed call (metrics), including those the caller then treats as harmless. */
  readonly onError?: (error: SlackApiError) => void;
  /** Told of every call sent again after a 429 (metrics). */
  readonly onRetry?: () => void;
  /** Which methods Slack has asked to wait, shared with the process's other ports (see `SlackRateLimits`). */
  readonly rateLimits?: SlackRateLimits;
  /**
   * How long a call may wait out its method's rate limit before it fails as limited; 0 (the default)
   * fails at once, for callers with a deadline of their own or a schedule of their own (the outbox).
   * Calls bound to a click's three-second trigger and the refreshed status line never wait.
   */
  readonly rateLimitPatienceMs?: number;
  /**
   * What this port's calls are worth when their method runs short (see `CallPriority`): `optional` for
   * what is only nice to have (previews, progress, intermediate status and reactions).
   */
  readonly priority?: CallPriority;
}

/** Per-call details for the rate limits: the channel a per-channel limit counts, the calls committed to. */
export interface CallScope {
  readonly channel?: string;
  readonly alsoSpare?: readonly string[];
}

/** The first call and up to three more after a 429, as the Web API client's own retries would. */
const rateLimitedAttempts = 4;

const tsResponse = z.object({ ts: z.string(), channel: z.string().optional() });
const openResponse = z.object({ channel: z.object({ id: z.string() }) });
const userResponse = z.object({
  user: z.object({
    name: z.string().optional(),
    real_name: z.string().optional(),
    profile: z.object({ display_name: z.string().optional(), real_name: z.string().optional() }).optional(),
  }),
});
const groupResponse = z.object({ users: z.array(z.string()) });
const permalinkResponse = z.object({ permalink: z.string() });

/** Reactions that are already there (or already gone) are the state we wanted, not a failure. */
const harmlessReactionErrors = new Set(['already_reacted', 'no_reaction']);

export function createSlackWebApi(options: SlackWebApiOptions): SlackPort {
  const { client, logger } = options;
  // Compact: what arrives here is already cut to Block Kit's limits, and a replacement longer than the
  // secret it replaces could push a section past them and get the whole message refused.
  const redactWith = options.redact ?? redactKnownPatterns;
  const redact = (text: string) => redactWith(text, { compact: true });
  const { names, groups, directChannels, permalinks, refused } =
    options.lookups ?? createSlackLookups({ cacheTtlMs: options.cacheTtlMs });
  const lookUpName = async (userId: string) => {
    const { user } = userResponse.parse(await call('users.info', () => client.users.info({ user: userId })));
    return { name: user.profile?.display_name || user.real_name || user.profile?.real_name || user.name };
  };
  // The status line is decoration: where Slack refuses it, it is not asked again. A token that lacks the
  // scope is refused everywhere; otherwise one conversation (a channel of a kind Slack does not allow it
  // in) is refused, and the others keep theirs.

  const rateLimits = options.rateLimits ?? new SlackRateLimits();
  const toError = (method: string) => (error: unknown) => {
    const failure = toSlackApiError(method, error);
    options.onError?.(failure);
    return failure;
  };
  const call = <Result>(
    method: string,
    work: () => Promise<Result>,
    patienceMs = options.rateLimitPatienceMs ?? 0,
    scope: CallScope = {},
  ): Promise<Result> =>
    rateLimits.run(method, work, {
      patienceMs,
      // A call that waits a long time for what must arrive keeps trying for as long as it waits.
      attempts: Math.max(rateLimitedAttempts, Math.ceil(patienceMs / 30_000)),
      toError: toError(method),
      onRetry: options.onRetry,
      priority: options.priority,
      ...scope,
    });

  const threadStatus = createSlackThreadStatus({ client, call, logger, refused });

  const blocks = (value: readonly KnownBlock[] | undefined) =>
    value ? value.map((block) => redactStrings(block, redact)) : undefined;
  const conversationMembers = createConversationMembers({
    client,
    logger,
    call,
    ttlMs: options.membersTtlMs,
  });

  return {
    async postMessage(message: OutgoingMessage) {
      const result = await call(
        'chat.postMessage',
        () =>
          client.chat.postMessage({
            channel: message.channel,
            thread_ts: message.threadTs,
            text: redact(message.text),
            blocks: blocks(message.blocks),
            unfurl_links: false,
            unfurl_media: false,
            metadata: message.deliveryKey
              ? { event_type: deliveryEventType, event_payload: { key: message.deliveryKey } }
              : undefined,
          }),
        undefined,
        { channel: message.channel },
      );
      const posted = tsResponse.parse(result);
      return { ts: posted.ts, channel: posted.channel ?? message.channel };
    },
    async updateMessage(message) {
      await call('chat.update', () =>
        client.chat.update({
          channel: message.channel,
          ts: message.ts,
          text: redact(message.text),
          blocks: blocks(message.blocks),
          // A message that becomes a delivery (an answer replacing a live message) is tagged like a post.
          ...(message.deliveryKey
            ? { metadata: { event_type: deliveryEventType, event_payload: { key: message.deliveryKey } } }
            : {}),
        }),
      );
    },
    async postEphemeral(message) {
      await call('chat.postEphemeral', () =>
        client.chat.postEphemeral({
          channel: message.channel,
          user: message.user,
          thread_ts: message.threadTs,
          text: redact(message.text),
          blocks: blocks(message.blocks),
        }),
      );
    },
    async addReaction(target) {
      await ignoring(harmlessReactionErrors, () =>
        call(
          'reactions.add',
          () => client.reactions.add({ channel: target.channel, timestamp: target.ts, name: target.name }),
          undefined,
          // A reaction that shows a passing state is added only where taking it off later is affordable.
          { alsoSpare: ['reactions.remove'] },
        ),
      );
    },
    async removeReaction(target) {
      await ignoring(harmlessReactionErrors, () =>
        call('reactions.remove', () =>
          client.reactions.remove({ channel: target.channel, timestamp: target.ts, name: target.name }),
        ),
      );
    },
    async userName(userId) {
      try {
        return (await names.fetch(userId, { context: () => lookUpName(userId) }))?.name;
      } catch (error) {
        logger.debug({ err: error, userId }, 'users.info failed; showing the raw id');
        return undefined;
      }
    },
    async groupMembers(groupId) {
      const users = await groups.fetch(groupId, {
        context: async () => {
          const result = await call('usergroups.users.list', () =>
            client.usergroups.users.list({ usergroup: groupId }),
          );
          return groupResponse.parse(result).users;
        },
      });
      if (users === undefined) throw new Error(`usergroups.users.list gave no members for ${groupId}`);
      return users;
    },
    async publishHome(userId, view: HomeView) {
      await call('views.publish', () =>
        client.views.publish({ user_id: userId, view: redactStrings(view, redact) }),
      );
    },
    async openView(triggerId, view) {
      await call('views.open', () => client.views.open({ trigger_id: triggerId, view }), 0);
    },
    async pushView(triggerId, view) {
      await call('views.push', () => client.views.push({ trigger_id: triggerId, view }), 0);
    },
    conversationMembers,
    ...threadStatus,
    findDelivery: createFindDelivery({ client, call }),
    deliveryKeyAt: createDeliveryKeyAt({ client, call }),
    async openDirectMessage(userId) {
      const channel = await directChannels.fetch(userId, {
        context: async () => {
          const result = await call('conversations.open', () => client.conversations.open({ users: userId }));
          return openResponse.parse(result).channel.id;
        },
      });
      if (channel === undefined) throw new Error(`conversations.open gave no channel for ${userId}`);
      return channel;
    },
    ...createSlackStreams({ client, call, redact, blocks }),
    async permalink(channel, ts) {
      try {
        return await permalinks.fetch(`${channel} ${ts}`, {
          context: async () => {
            const result = await call('chat.getPermalink', () =>
              client.chat.getPermalink({ channel, message_ts: ts }),
            );
            return permalinkResponse.parse(result).permalink;
          },
        });
      } catch (error) {
        logger.debug({ err: error }, 'chat.getPermalink failed');
        return undefined;
      }
    },
  };
}

async function ignoring(errors: ReadonlySet<string>, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof SlackApiError && errors.has(error.slackError)) return;
    throw error;
  }
}
