/**
 * What the fake Slack Web API keeps on Slack's side (messages with their metadata, people, groups,
 * channels) and how each method answers from it, in Slack's response shapes.
 */
import { createFakeDirectory, directChannelOf } from './fake-slack-directory.js';
import { channelHistory, threadReplies } from './fake-slack-history.js';
import { blocksOf, metadataOf, stringParam, wireMessage, withChunks } from './fake-slack-wire.js';

export interface FakeIdentity {
  readonly teamId: string;
  /** Set for an installation inside an Enterprise Grid organisation. */
  readonly enterpriseId?: string;
  readonly teamName: string;
  readonly botUserId: string;
  readonly botId: string;
  readonly botName: string;
}

export interface FakeChannel {
  readonly name: string;
  readonly isPrivate?: boolean;
  /** A direct message or a group DM; a channel otherwise. */
  readonly kind?: 'channel' | 'im' | 'mpim';
  /** What `conversations.members` lists, a page at a time. */
  readonly members?: readonly string[];
}

/** Message metadata as `chat.postMessage` takes it and `include_all_metadata` returns it. */
export interface FakeMetadata {
  readonly event_type: string;
  readonly event_payload: Record<string, unknown>;
}

export interface FakeMessage {
  readonly channel: string;
  readonly ts: string;
  readonly threadTs: string | undefined;
  readonly text: string;
  readonly blocks: readonly Record<string, unknown>[];
  readonly metadata: FakeMetadata | undefined;
  readonly updates: number;
  /** Set on a message made with `chat.startStream`: whether it is still open for `chat.appendStream`. */
  readonly streaming?: boolean;
  /** Set on a message a person posted (seeded by a test); holdfast's own messages have none. */
  readonly user?: string;
  /** The task chunks a stream carried, by id, as last updated. */
  readonly tasks?: Readonly<Record<string, { title: string; status: string }>>;
}

export interface FakeWorkspace {
  answer(method: string, params: Record<string, unknown>): Record<string, unknown>;
  /** Every message, in the order Slack took them. */
  messages(): FakeMessage[];
  message(channel: string, ts: string): FakeMessage | undefined;
  /** The thread's assistant status line as people see it now; '' when none shows. */
  assistantStatus(channel: string, threadTs: string): string;
  sessionStatus(channel: string, threadTs: string): string | undefined;
  reactions(channel: string, ts: string): readonly string[];
  setUser(userId: string, profile: { name: string; realName?: string; displayName?: string }): void;
  setGroupMembers(groupId: string, members: readonly string[]): void;
  setChannel(channelId: string, info: FakeChannel): void;
  setSocketModeUrl(url: string): void;
  /** A message a person posted, for methods that read history (`conversations.replies`). */
  addHumanMessage(message: {
    channel: string;
    ts: string;
    threadTs?: string;
    user: string;
    text: string;
  }): void;
}

export { directChannelOf } from './fake-slack-directory.js';

export function createFakeWorkspace(identity: FakeIdentity, firstTsSeconds = 1767225000): FakeWorkspace {
  const messages = new Map<string, FakeMessage>();
  const directory = createFakeDirectory(identity);
  const statuses = new Map<string, string>();
  const sessions = new Map<string, string>();
  const reactions = new Map<string, string[]>();
  let socketModeUrl: string | undefined;
  let tsCounter = 0;

  // Slack's ts values are unique per channel and sort by time; a counter keeps them unique and ordered.
  const nextTs = () => {
    tsCounter += 1;
    return `${firstTsSeconds}.${String(tsCounter).padStart(6, '0')}`;
  };
  const key = (channel: string, ts: string) => `${channel}/${ts}`;

  const answer = (method: string, params: Record<string, unknown>): Record<string, unknown> => {
    const text = (name: string) => stringParam(params, name);
    const channel = text('channel') ?? text('channel_id') ?? '';
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://holdfast-test.slack.com/',
          team: identity.teamName,
          user: identity.botName,
          team_id: identity.teamId,
          user_id: identity.botUserId,
          bot_id: identity.botId,
          ...(identity.enterpriseId ? { enterprise_id: identity.enterpriseId } : {}),
          is_enterprise_install: false,
        };
      case 'chat.postMessage': {
        if (!text('text') && params.blocks === undefined) return { ok: false, error: 'no_text' };
        const target = /^[UW]/.test(channel) ? directChannelOf(channel) : channel;
        const ts = nextTs();
        const message: FakeMessage = {
          channel: target,
          ts,
          threadTs: text('thread_ts'),
          text: text('text') ?? '',
          blocks: blocksOf(params),
          metadata: metadataOf(params.metadata),
          updates: 0,
        };
        messages.set(key(target, ts), message);
        // As Slack documents for assistant.threads.setStatus: the app's reply clears the status line.
        if (message.threadTs) statuses.delete(key(target, message.threadTs));
        return { ok: true, channel: target, ts, message: wireMessage(message, identity, false) };
      }
      case 'chat.update': {
        const ts = text('ts') ?? '';
        const existing = messages.get(key(channel, ts));
        if (!existing) return { ok: false, error: 'message_not_found' };
        const updated: FakeMessage = {
          ...existing,
          text: text('text') ?? existing.text,
          blocks: params.blocks === undefined ? existing.blocks : blocksOf(params),
          metadata: params.metadata === undefined ? existing.metadata : metadataOf(params.metadata),
          updates: existing.updates + 1,
        };
        messages.set(key(channel, ts), updated);
        return { ok: true, channel, ts, text: updated.text, message: wireMessage(updated, identity, false) };
      }
      case 'chat.startStream': {
        const threadTs = text('thread_ts');
        if (!threadTs) return { ok: false, error: 'invalid_arguments' };
        // Outside a DM Slack streams to one person, who must be named.
        if (!channel.startsWith('D') && (!text('recipient_user_id') || !text('recipient_team_id')))
          return { ok: false, error: 'missing_recipient' };
        const ts = nextTs();
        const started = withChunks(
          {
            channel,
            ts,
            threadTs,
            text: text('markdown_text') ?? '',
            blocks: [],
            metadata: undefined,
            updates: 0,
            streaming: true,
            tasks: {},
          },
          params.chunks,
        );
        messages.set(key(channel, ts), started);
        statuses.delete(key(channel, threadTs));
        return { ok: true, channel, ts };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const ts = text('ts') ?? '';
        const existing = messages.get(key(channel, ts));
        if (!existing) return { ok: false, error: 'message_not_found' };
        if (!existing.streaming) return { ok: false, error: 'message_not_in_streaming_state' };
        const grown = withChunks(
          { ...existing, text: existing.text + (text('markdown_text') ?? '') },
          params.chunks,
        );
        messages.set(key(channel, ts), { ...grown, streaming: method === 'chat.appendStream' });
        return { ok: true, channel, ts };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: nextTs() };
      case 'chat.getPermalink':
        return {
          ok: true,
          channel,
          permalink: `https://holdfast-test.slack.com/archives/${channel}/p${(text('message_ts') ?? '').replace('.', '')}`,
        };
      case 'conversations.replies':
        return threadReplies(messages.values(), channel, params, identity);
      case 'conversations.history':
        return channelHistory(messages.values(), channel, params, identity);
      case 'reactions.add':
      case 'reactions.remove': {
        // As Slack answers: a reaction already there, or one that is not, is refused.
        const target = key(channel, text('timestamp') ?? '');
        const name = text('name') ?? '';
        const present = reactions.get(target) ?? [];
        if (method === 'reactions.add') {
          if (present.includes(name)) return { ok: false, error: 'already_reacted' };
          reactions.set(target, [...present, name]);
        } else {
          if (!present.includes(name)) return { ok: false, error: 'no_reaction' };
          reactions.set(
            target,
            present.filter((reaction) => reaction !== name),
          );
        }
        return { ok: true };
      }
      case 'assistant.threads.setStatus':
        statuses.set(key(channel, text('thread_ts') ?? ''), text('status') ?? '');
        return { ok: true };
      case 'agents.sessions.setStatus': {
        const status = text('status') ?? '';
        if (!['processing', 'active', 'suspended', 'closed'].includes(status))
          return { ok: false, error: 'invalid_arguments' };
        sessions.set(key(channel, text('thread_ts') ?? ''), status);
        return { ok: true, status };
      }
      case 'views.open': {
        const view = params.view as Record<string, unknown> | undefined;
        if (!text('trigger_id')) return { ok: false, error: 'invalid_trigger_id' };
        if (view?.type !== 'modal') return { ok: false, error: 'invalid_arguments' };
        return { ok: true, view: { id: `V0MODAL${nextTs().slice(-6)}`, team_id: identity.teamId, ...view } };
      }
      case 'views.push': {
        const view = params.view as Record<string, unknown> | undefined;
        if (!text('trigger_id')) return { ok: false, error: 'invalid_trigger_id' };
        if (view?.type !== 'modal') return { ok: false, error: 'invalid_arguments' };
        return { ok: true, view: { id: `V0PUSHED${nextTs().slice(-6)}`, team_id: identity.teamId, ...view } };
      }
      case 'views.publish': {
        const view = params.view as Record<string, unknown> | undefined;
        if (view?.type !== 'home') return { ok: false, error: 'invalid_arguments' };
        return { ok: true, view: { id: `V${tsCounter}`, team_id: identity.teamId, ...view } };
      }
      case 'apps.connections.open':
        return socketModeUrl ? { ok: true, url: socketModeUrl } : { ok: false, error: 'not_allowed' };
      default:
        // People and channels are the directory's to answer for; any other method Slack does not know.
        return directory.answer(method, params, channel) ?? { ok: false, error: 'unknown_method' };
    }
  };

  return {
    answer,
    messages: () => [...messages.values()],
    message: (channel, ts) => messages.get(key(channel, ts)),
    assistantStatus: (channel, threadTs) => statuses.get(key(channel, threadTs)) ?? '',
    sessionStatus: (channel, threadTs) => sessions.get(key(channel, threadTs)),
    reactions: (channel, ts) => reactions.get(key(channel, ts)) ?? [],
    setUser: (userId, profile) => directory.setUser(userId, profile),
    setGroupMembers: (groupId, members) => directory.setGroupMembers(groupId, members),
    setChannel: (channelId, info) => directory.setChannel(channelId, info),
    setSocketModeUrl(url) {
      socketModeUrl = url;
    },
    addHumanMessage(message) {
      messages.set(key(message.channel, message.ts), {
        channel: message.channel,
        ts: message.ts,
        threadTs: message.threadTs,
        text: message.text,
        blocks: [],
        metadata: undefined,
        updates: 0,
        user: message.user,
      });
    },
  };
}
