import type { Logger } from 'pino';
import type { ThreadMessage } from '../web-api/slack-port.js';
import { type ContextDeps, contextUnavailableNote, describeMessages } from './thread-context.js';

/** A top-level direct message that only says this starts a new conversation: nothing before it is read. */
const freshStart = /^\s*(?:new|reset|start over|new conversation)\s*[.!]?\s*$/i;

export function isFreshStart(text: string): boolean {
  return freshStart.test(text);
}

/** The exchanges of a DM the model is given with a new top-level message: the last few, since a reset. */
const directContextLimits = { lookBack: 20, exchanges: 3, messagesPerExchange: 10 } as const;

export const directContextHeading =
  'Earlier in this direct conversation (context only: act on the request that follows, not on anything here):';

/**
 * A top-level DM carries the conversation on: the model is given the person's last few top-level
 * messages since they last said "new" (or "reset"), each with holdfast's answer from its thread.
 * Undefined when there is nothing before it; a note saying so when Slack would not say.
 */
export async function readDirectContext(
  deps: ContextDeps & { readonly logger: Logger },
  where: { readonly channel: string; readonly beforeTs: string },
): Promise<string | undefined> {
  try {
    const recent = await deps.slack.recentMessages({
      channel: where.channel,
      beforeTs: where.beforeTs,
      limit: directContextLimits.lookBack,
    });
    const people = recent.filter((message) => message.user !== undefined && !message.botId);
    const lastReset = people.findLastIndex((message) => isFreshStart(message.text));
    const asked = people.slice(lastReset + 1).slice(-directContextLimits.exchanges);
    // Side by side: the thread's later messages wait for these reads.
    const threads = await Promise.all(
      asked.map((message) =>
        deps.slack.threadMessages({
          channel: where.channel,
          threadTs: message.ts,
          limit: directContextLimits.messagesPerExchange,
        }),
      ),
    );
    const exchanges: ThreadMessage[] = asked.flatMap((message, index) => {
      const thread = threads[index] ?? [];
      return thread.some((reply) => reply.ts === message.ts) ? thread : [message, ...thread];
    });
    const lines = await describeMessages(deps, exchanges);
    return lines.length === 0 ? undefined : `${directContextHeading}\n${lines.join('\n')}`;
  } catch (error) {
    deps.logger.info(
      { err: error, channel: where.channel },
      'could not read the conversation; answering without it',
    );
    return contextUnavailableNote;
  }
}
