import type { Logger } from 'pino';
import { z } from 'zod';
import type { Runtime } from '../../runtime/create-runtime.js';
import { conversationId } from '../../store/conversation-id.js';
import type { NewInboundMessage } from '../../store/store.js';
import { type MessageEvent, messageEventSchema } from '../payloads.js';
import type { SlackPort } from '../web-api/slack-port.js';
import { readDirectContext } from './direct-context.js';
import { mentionsLine } from './own-mentions.js';
import { renderMentions } from './render-mentions.js';
import { readAddress, screenMessage } from './screen-message.js';
import { readThreadContext } from './thread-context.js';

export interface ReceiveMessageDeps {
  readonly runtime: Runtime;
  readonly slack: SlackPort;
  readonly botUserId: string;
  readonly logger: Logger;
  /** A secret pasted into Slack is kept out of the database from the start. */
  readonly redact?: (text: string) => string;
}

export type ReceiveResult =
  | { readonly type: 'ignored'; readonly reason: string }
  | { readonly type: 'duplicate' }
  | { readonly type: 'kept' };

export type TurnResult =
  | { readonly type: 'ignored'; readonly reason: string }
  | { readonly type: 'duplicate' }
  | { readonly type: 'refused'; readonly reason: 'thread-busy' | 'user-busy' }
  | { readonly type: 'queued'; readonly turnId: string; readonly conversationId: string };

/** How holdfast acknowledges "new" in a DM. */
const freshStartReaction = 'broom';

/** A message as it is kept between its acknowledgement and its turn (see `InboundQueue`). */
const keptMessageSchema = z.object({
  // Kept only once screened: a message with no author never is.
  event: messageEventSchema.extend({ user: z.string() }),
  teamId: z.string(),
  eventId: z.string().optional(),
});

/**
 * One Slack message → at most one turn, in two halves. This one decides whether the message matters and
 * keeps it on disk; Slack's acknowledgement waits for nothing else, in particular for no call to Slack.
 * The names, the thread's history and the turn come after (`turnFromKeptMessage`).
 *
 * A mention in a channel starts a conversation in its thread; replies in a known thread and DMs continue
 * one. Slack delivers at least once, and one post arrives as both `message` and `app_mention`: each copy
 * is kept under its own key, and the trigger key (channel:ts) makes every copy a single turn.
 */
export async function receiveMessage(
  deps: ReceiveMessageDeps,
  event: MessageEvent,
  envelope: { teamId: string; eventId?: string },
): Promise<ReceiveResult> {
  const screening = screenMessage(event, envelope, {
    botUserId: deps.botUserId,
    redact: deps.redact ?? ((text: string) => text),
  });
  switch (screening.type) {
    case 'ignored':
      return screening;
    case 'if-thread-known':
      if (!(await deps.runtime.store.conversations.get(screening.conversationId)))
        return { type: 'ignored', reason: 'thread holdfast is not part of' };
      return keep(deps, screening.message);
    case 'fresh-start':
      // Nothing to answer: the next message starts afresh. A reaction says so, and twice is still once.
      void deps.slack
        .addReaction({ channel: event.channel, ts: event.ts, name: freshStartReaction })
        .catch((error: unknown) => deps.logger.debug({ err: error }, 'could not acknowledge a fresh start'));
      return { type: 'ignored', reason: 'a fresh start' };
    case 'keep':
      return keep(deps, screening.message);
  }
}

async function keep(deps: ReceiveMessageDeps, message: NewInboundMessage): Promise<ReceiveResult> {
  const { kept } = await deps.runtime.inbound.keep(message);
  return kept ? { type: 'kept' } : { type: 'duplicate' };
}

/** The second half of `receiveMessage`: a kept message becomes a turn (or a polite refusal). */
export async function turnFromKeptMessage(
  deps: ReceiveMessageDeps,
  kept: { readonly key: string; readonly payload: string },
): Promise<TurnResult> {
  let parsed: z.output<typeof keptMessageSchema>;
  try {
    parsed = keptMessageSchema.parse(JSON.parse(kept.payload));
  } catch (error) {
    // Written by this code a moment ago; one that cannot be read would fail the same way every time.
    deps.logger.error({ err: error }, 'dropping a kept message that cannot be read');
    return { type: 'ignored', reason: 'unreadable' };
  }
  const result = await makeTurn(deps, parsed, kept.key);
  deps.logger.debug({ result: result.type, ts: parsed.event.ts }, 'message event handled');
  return result;
}

async function makeTurn(
  deps: ReceiveMessageDeps,
  { event, teamId }: z.output<typeof keptMessageSchema>,
  inboundKey: string,
): Promise<TurnResult> {
  const { isDirect, isMention, key, inThread } = readAddress(event, teamId, deps.botUserId);
  const threadTs = key.threadTs;
  const known = inThread ? await deps.runtime.store.conversations.get(conversationId(key)) : undefined;
  const topLevelDirect = isDirect && !event.thread_ts;
  // Asked for the first time inside a thread people already wrote in: the model reads what they said.
  // A new top-level DM carries the direct conversation on. The lookups run side by side.
  const userName = (userId: string) => deps.slack.userName(userId);
  const [context, text, speaker, mentioned] = await Promise.all([
    inThread && !known
      ? readThreadContext(deps, { channel: event.channel, threadTs, beforeTs: event.ts })
      : topLevelDirect
        ? readDirectContext(deps, { channel: event.channel, beforeTs: event.ts })
        : undefined,
    renderMentions(event.text, { botUserId: deps.botUserId, userName }),
    userName(event.user),
    mentionsLine(event.text, { botUserId: deps.botUserId, userName }),
  ]);
  // Slack's retries and the message/app_mention twins all carry the same channel:ts, and the turn's
  // trigger key is unique in the same commit that enqueues it: one post, one turn.
  // One post that mentions holdfast arrives as a message/app_mention pair; a refusal is told (and
  // audited) for the app_mention copy only.
  const answersRefusal = event.type === 'app_mention' || !isMention;
  const result = await deps.runtime.submit(
    {
      ...key,
      triggerKey: `${event.channel}:${event.ts}`,
      triggerTs: event.ts,
      requestedBy: event.user,
      inboundKey,
      inputText: [context, `@${speaker ?? event.user}: ${text}${describeFiles(event.files)}`, mentioned]
        .filter((part) => part !== undefined)
        .join('\n\n'),
    },
    { auditRefusal: answersRefusal },
  );
  if (result.type === 'duplicate') return { type: 'duplicate' };
  if (result.type === 'refused') {
    if (answersRefusal) {
      await deps.slack
        .postEphemeral({
          channel: event.channel,
          threadTs: event.thread_ts,
          user: event.user,
          text: describeBusy(result.reason, result.unfinished),
        })
        .catch((error: unknown) => deps.logger.warn({ err: error }, 'could not say that holdfast is busy'));
    }
    return { type: 'refused', reason: result.reason };
  }
  deps.logger.info({ turnId: result.turn.id, conversationId: result.turn.conversationId }, 'turn queued');
  return { type: 'queued', turnId: result.turn.id, conversationId: result.turn.conversationId };
}

/** Attached files, as the model is told of them: name, type and size (their content is not read). */
function describeFiles(files: MessageEvent['files']): string {
  if (!files || files.length === 0) return '';
  const described = files.map((file) => {
    const name = file.name ?? file.title ?? 'a file';
    const type = file.mimetype ?? file.filetype;
    const size = file.size === undefined ? undefined : formatSize(file.size);
    const details = [type, size].filter(Boolean).join(', ');
    return details ? `${name} (${details})` : name;
  });
  return `\n[attached: ${described.join('; ')}]`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Why a message did not start anything, and when it will work again. */
function describeBusy(reason: 'thread-busy' | 'user-busy', unfinished: number): string {
  return reason === 'thread-busy'
    ? `This thread already has ${unfinished} requests waiting or running, so holdfast did not take this one. ` +
        'Send it again once they finish, or start a new thread.'
    : `You already have ${unfinished} requests waiting or running, so holdfast did not take this one. ` +
        'Send it again once some of them finish (`/approvals` shows what waits for a decision).';
}
