import { markerOf, parseCardMarker } from './load-script.js';
import type { PostedCard } from './load-slack-api.js';
import type { Timeline } from './load-timeline.js';

/**
 * What the load benchmark's fake Slack keeps of the workspace, in Slack's shapes and with Slack's
 * refusals where the benchmark depends on them: messages and their threads, live streams (open until
 * stopped), the bot's reactions per message (`already_reacted`, `no_reaction`), and which cards still
 * carry their buttons. It tells the driver when an approval card lands (to click it) and when an answer
 * does. Duplicates are found twice over: by the outbox key each post carries in its metadata, and by the
 * mention an answer names.
 */
export interface LoadSlackWorkspaceOptions {
  /** Reads `(thread, seq)` from an answer's text, or undefined for any other post. */
  readonly parseAnswer: (text: string) => { thread: number; seq: number } | undefined;
  readonly onCard: (card: PostedCard) => void;
  /** The first answer to each mention, as it arrives. */
  readonly onAnswer: (answer: { thread: number; seq: number }) => void;
  readonly timeline: Timeline;
  readonly now: () => number;
}

export interface LoadSlackWorkspaceReport {
  readonly duplicateKeys: number;
  readonly duplicateAnswers: number;
  readonly duplicateCards: number;
  readonly ephemerals: number;
  readonly failureNotices: number;
  /** Per thread (`channel:thread_ts`), when the bot's first message in it (a post or a stream) appeared. */
  readonly firstReplies: Record<string, number>;
  /** Per message (`channel:ts`), the bot's reactions on it now and when they last changed. */
  readonly reactions: Record<string, { names: string[]; changedAt: number }>;
  /** Streams started and never stopped. */
  readonly streamsOpen: number;
  /** Cards whose Allow was clicked that still carry their buttons (the rewrite never came). */
  readonly clickedCardsWithButtons: number;
}

const botUserId = 'U0LOADBOT';
const teamId = 'T0LOAD';

export function createLoadSlackWorkspace(options: LoadSlackWorkspaceOptions) {
  const { timeline, now } = options;
  const postedKeys = new Set<string>();
  const carded = new Set<string>();
  const firstReplies = new Map<string, number>();
  const reactions = new Map<string, { names: string[]; changedAt: number }>();
  const openStreams = new Map<string, string>();
  /** Card messages (`channel:ts`) still carrying buttons, with the mention they ask about. */
  const cardsWithButtons = new Map<string, string>();
  let duplicateKeys = 0;
  let duplicateAnswers = 0;
  let duplicateCards = 0;
  let ephemerals = 0;
  let failureNotices = 0;
  let tsCounter = 0;
  // Slack's ts values sort by time and are unique per channel; a counter is both.
  const nextTs = () => `1767225000.${String(++tsCounter).padStart(6, '0')}`;
  /** Which message each answer landed in: the same answer again in that message is an edit, not a repeat. */
  const answerMessages = new Map<string, string>();

  const replied = (thread: string) => {
    if (!firstReplies.has(thread)) firstReplies.set(thread, now());
  };
  const threadHasOpenStream = (thread: string) => [...openStreams.values()].includes(thread);

  const answerIn = (text: string, message: string, thread: string) => {
    const answer = options.parseAnswer(text);
    if (!answer) return;
    const id = `${answer.thread}#${answer.seq}`;
    const marker = markerOf(answer);
    const first = answerMessages.get(id);
    if (first !== undefined) {
      if (first !== message) {
        duplicateAnswers += 1;
        timeline.count(marker, 'doubledAnswers');
      }
      return;
    }
    if (!openStreams.has(message) && threadHasOpenStream(thread)) timeline.count(marker, 'besideOpenPreview');
    answerMessages.set(id, message);
    timeline.mark(marker, 'answer', now());
    options.onAnswer(answer);
  };

  const posted = (params: Record<string, unknown>, channel: string, ts: string) => {
    const text = typeof params.text === 'string' ? params.text : '';
    const threadTs = typeof params.thread_ts === 'string' ? params.thread_ts : ts;
    const thread = `${channel}:${threadTs}`;
    if (!channel.startsWith('D')) replied(thread);
    const metadata = params.metadata as { event_payload?: { key?: unknown } } | undefined;
    const key = metadata?.event_payload?.key;
    if (typeof key === 'string') {
      if (postedKeys.has(key)) duplicateKeys += 1;
      postedKeys.add(key);
      if (key.startsWith('notice:')) failureNotices += 1;
    }
    const blocks = Array.isArray(params.blocks) ? (params.blocks as unknown[]) : [];
    const card = approvalButtons(blocks);
    if (card) {
      const marker = parseCardMarker(`${text} ${JSON.stringify(blocks)}`) ?? card.requestId;
      cardsWithButtons.set(`${channel}:${ts}`, marker);
      // A request has one card in its thread and a copy in each approver's DM: one per channel is right.
      const where = `${card.requestId} ${channel}`;
      if (carded.has(where)) {
        duplicateCards += 1;
        timeline.count(marker, 'doubledCards');
      }
      carded.add(where);
      // The approver clicks the card in the thread; the DM copy is the same request's second card.
      if (channel.startsWith('D')) return;
      timeline.mark(marker, 'card', now());
      options.onCard({ channel, ts, threadTs, text, blocks, marker, ...card });
      return;
    }
    answerIn(text, `${channel}:${ts}`, thread);
  };

  /**
   * A message edited in place: a turn that ran long enough to open a live message ends by replacing it
   * with the answer (`chat.update`), so the answer is counted there too; a card loses its buttons.
   */
  const edited = (params: Record<string, unknown>, channel: string, threadOf: string | undefined) => {
    const message = `${channel}:${String(params.ts)}`;
    if (params.blocks !== undefined) {
      const blocks = Array.isArray(params.blocks) ? (params.blocks as unknown[]) : [];
      if (!approvalButtons(blocks)) cardsWithButtons.delete(message);
    }
    const text = typeof params.text === 'string' ? params.text : '';
    answerIn(text, message, threadOf ?? message);
  };

  /** Threads of the messages this stand-in made, for edits (which name only the message). */
  const threads = new Map<string, string>();

  const react = (method: string, params: Record<string, unknown>, channel: string) => {
    const target = `${channel}:${String(params.timestamp)}`;
    const name = typeof params.name === 'string' ? params.name : '';
    const present = reactions.get(target)?.names ?? [];
    if (method === 'reactions.add') {
      if (present.includes(name)) return { ok: false, error: 'already_reacted' };
      reactions.set(target, { names: [...present, name], changedAt: now() });
    } else {
      if (!present.includes(name)) return { ok: false, error: 'no_reaction' };
      reactions.set(target, { names: present.filter((each) => each !== name), changedAt: now() });
    }
    return { ok: true };
  };

  const respond = (method: string, params: Record<string, unknown>): Record<string, unknown> => {
    const channel = typeof params.channel === 'string' ? params.channel : '';
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          team: 'Load',
          user: 'holdfast',
          team_id: teamId,
          user_id: botUserId,
          bot_id: 'B0LOAD',
        };
      case 'chat.postMessage': {
        const ts = nextTs();
        threads.set(
          `${channel}:${ts}`,
          `${channel}:${typeof params.thread_ts === 'string' ? params.thread_ts : ts}`,
        );
        posted(params, channel, ts);
        return { ok: true, channel, ts, message: { type: 'message', ts, text: params.text ?? '' } };
      }
      case 'chat.update':
        edited(params, channel, threads.get(`${channel}:${String(params.ts)}`));
        return { ok: true, channel, ts: params.ts, text: params.text ?? '' };
      case 'chat.startStream': {
        if (typeof params.thread_ts !== 'string') return { ok: false, error: 'invalid_arguments' };
        const ts = nextTs();
        const thread = `${channel}:${params.thread_ts}`;
        threads.set(`${channel}:${ts}`, thread);
        openStreams.set(`${channel}:${ts}`, thread);
        replied(thread);
        return { ok: true, channel, ts };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const message = `${channel}:${String(params.ts)}`;
        if (!openStreams.has(message)) return { ok: false, error: 'message_not_in_streaming_state' };
        if (method === 'chat.stopStream') openStreams.delete(message);
        return { ok: true, channel, ts: params.ts };
      }
      case 'chat.postEphemeral':
        ephemerals += 1;
        return { ok: true, message_ts: nextTs() };
      case 'reactions.add':
      case 'reactions.remove':
        return react(method, params, channel);
      case 'assistant.threads.setStatus':
        return { ok: true };
      case 'agents.sessions.setStatus':
        return { ok: true, status: params.status };
      case 'users.info': {
        const id = typeof params.user === 'string' ? params.user : '';
        const name = id.toLowerCase();
        return {
          ok: true,
          user: { id, name, real_name: name, profile: { display_name: name, real_name: name } },
        };
      }
      case 'chat.getPermalink':
        return {
          ok: true,
          permalink: `https://load.slack.com/archives/${channel}/p${String(params.message_ts)}`,
        };
      case 'conversations.open': {
        const users = typeof params.users === 'string' ? params.users : '';
        return { ok: true, channel: { id: `D${users}` } };
      }
      case 'conversations.info':
        return {
          ok: true,
          channel: { id: channel, name: 'load', is_channel: true, is_private: false, is_member: true },
        };
      case 'conversations.replies':
      case 'conversations.history':
        // Nothing to reconcile: this stand-in never loses a post, so a search finds nothing new.
        return { ok: true, messages: [], response_metadata: { next_cursor: '' } };
      default:
        return { ok: false, error: 'unknown_method' };
    }
  };

  return {
    botUserId,
    teamId,
    respond,
    report: (clicked: (marker: string) => boolean): LoadSlackWorkspaceReport => ({
      duplicateKeys,
      duplicateAnswers,
      duplicateCards,
      ephemerals,
      failureNotices,
      firstReplies: Object.fromEntries(firstReplies),
      reactions: Object.fromEntries(reactions),
      streamsOpen: openStreams.size,
      clickedCardsWithButtons: [...cardsWithButtons.values()].filter(clicked).length,
    }),
  };
}

/** The request id and block id of an approval card's Allow button, or undefined for any other post. */
function approvalButtons(blocks: readonly unknown[]): { requestId: string; blockId: string } | undefined {
  for (const block of blocks) {
    const candidate = block as { type?: unknown; block_id?: unknown; elements?: unknown };
    if (candidate.type !== 'actions' || typeof candidate.block_id !== 'string') continue;
    if (!candidate.block_id.startsWith('holdfast.approval:') || !Array.isArray(candidate.elements)) continue;
    const allow = candidate.elements.find(
      (element: { action_id?: unknown }) => element.action_id === 'holdfast.approval.allow',
    ) as { value?: unknown } | undefined;
    if (typeof allow?.value === 'string') return { requestId: allow.value, blockId: candidate.block_id };
  }
  return undefined;
}
