/**
 * What the fake Slack Web API keeps on Slack's side (messages with their metadata, people, groups,
 * channels) and how each method answers from it, in Slack's response shapes.
 */
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

/** The app's DM with a user: Slack takes a user id as `channel` and posts there. */
export function directChannelOf(userId: string): string {
  return `D${userId.slice(1)}`;
}

export function createFakeWorkspace(identity: FakeIdentity, firstTsSeconds = 1767225000): FakeWorkspace {
  const messages = new Map<string, FakeMessage>();
  const users = new Map<string, { name: string; realName?: string; displayName?: string }>();
  const groups = new Map<string, readonly string[]>();
  const channels = new Map<string, FakeChannel>();
  const statuses = new Map<string, string>();
  let socketModeUrl: string | undefined;
  let tsCounter = 0;

  // Slack's ts values are unique per channel and sort by time; a counter keeps them unique and ordered.
  const nextTs = () => {
    tsCounter += 1;
    return `${firstTsSeconds}.${String(tsCounter).padStart(6, '0')}`;
  };
  const key = (channel: string, ts: string) => `${channel}/${ts}`;
  const byTs = (a: FakeMessage, b: FakeMessage) => a.ts.localeCompare(b.ts);

  const answer = (method: string, params: Record<string, unknown>): Record<string, unknown> => {
    const text = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
    const channel = text('channel') ?? text('channel_id') ?? '';
    const withMetadata = params.include_all_metadata === true || params.include_all_metadata === 'true';
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
      case 'conversations.replies': {
        const threadTs = text('ts') ?? '';
        // The fake never sees people's own posts, so a thread root it does not know is still a thread.
        const thread = [...messages.values()]
          .filter((message) => message.channel === channel)
          .filter((message) => message.ts === threadTs || message.threadTs === threadTs)
          .filter(after(text('oldest')))
          .filter(before(text('latest'), params.inclusive === true || params.inclusive === 'true'))
          .sort(byTs);
        return page(thread, params, (message) => wireMessage(message, identity, withMetadata));
      }
      case 'conversations.history': {
        // A channel's own messages, newest first; replies stay in their threads.
        const history = [...messages.values()]
          .filter((message) => message.channel === channel)
          .filter((message) => message.threadTs === undefined || message.threadTs === message.ts)
          .filter(after(text('oldest')))
          .filter(before(text('latest'), params.inclusive === true || params.inclusive === 'true'))
          .sort((a, b) => byTs(b, a));
        return {
          ...page(history, params, (message) => wireMessage(message, identity, withMetadata)),
          pin_count: 0,
          channel_actions_ts: null,
          channel_actions_count: 0,
        };
      }
      case 'conversations.open': {
        const ids = (text('users') ?? '').split(',').filter((id) => id !== '');
        if (ids.length === 0) return { ok: false, error: 'users_list_not_supplied' };
        if (ids.length > 1) return { ok: false, error: 'method_not_supported_for_channel_type' };
        const user = ids[0] as string;
        if (!users.has(user)) return { ok: false, error: 'user_not_found' };
        return { ok: true, channel: { id: directChannelOf(user) } };
      }
      case 'reactions.add':
      case 'reactions.remove':
        return { ok: true };
      case 'assistant.threads.setStatus':
        statuses.set(key(channel, text('thread_ts') ?? ''), text('status') ?? '');
        return { ok: true };
      case 'users.info': {
        const id = text('user') ?? '';
        const user = users.get(id);
        if (!user) return { ok: false, error: 'user_not_found' };
        return {
          ok: true,
          user: {
            id,
            team_id: identity.teamId,
            name: user.name,
            real_name: user.realName ?? user.name,
            is_bot: false,
            profile: {
              display_name: user.displayName ?? user.name,
              real_name: user.realName ?? user.name,
            },
          },
        };
      }
      case 'usergroups.users.list': {
        const members = groups.get(text('usergroup') ?? '');
        return members ? { ok: true, users: [...members] } : { ok: false, error: 'no_such_subteam' };
      }
      case 'conversations.info': {
        const info = channels.get(channel);
        if (!info) return { ok: false, error: 'channel_not_found' };
        const kind = info.kind ?? 'channel';
        return {
          ok: true,
          channel: {
            id: channel,
            name: info.name,
            is_channel: kind === 'channel' && !info.isPrivate,
            is_group: kind === 'channel' && info.isPrivate === true,
            is_im: kind === 'im',
            is_mpim: kind === 'mpim',
            is_private: kind !== 'channel' || (info.isPrivate ?? false),
            is_member: true,
          },
        };
      }
      case 'conversations.members': {
        const info = channels.get(channel);
        if (!info) return { ok: false, error: 'channel_not_found' };
        const { items, next } = pageOf(info.members ?? [], params);
        return { ok: true, members: items, response_metadata: { next_cursor: next } };
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
        return { ok: false, error: 'unknown_method' };
    }
  };

  return {
    answer,
    messages: () => [...messages.values()],
    message: (channel, ts) => messages.get(key(channel, ts)),
    assistantStatus: (channel, threadTs) => statuses.get(key(channel, threadTs)) ?? '',
    setUser: (userId, profile) => users.set(userId, profile),
    setGroupMembers: (groupId, members) => groups.set(groupId, [...members]),
    setChannel: (channelId, info) => channels.set(channelId, info),
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

/** Slack's `latest` bounds from above, exclusive unless `inclusive`. */
function before(latest: string | undefined, inclusive: boolean): (message: FakeMessage) => boolean {
  if (!latest) return () => true;
  const bound = Number(latest);
  return (message) => (inclusive ? Number(message.ts) <= bound : Number(message.ts) < bound);
}

/** Slack's `oldest` is exclusive: messages strictly after it. */
function after(oldest: string | undefined): (message: FakeMessage) => boolean {
  if (!oldest) return () => true;
  const bound = Number(oldest);
  return (message) => Number(message.ts) > bound;
}

/** Slack pages with an opaque cursor; an offset is opaque enough for a fake. */
function pageOf<T>(all: readonly T[], params: Record<string, unknown>): { items: T[]; next: string } {
  const limit = Math.max(1, Math.min(1000, Number(params.limit ?? 100) || 100));
  const offset = Number(typeof params.cursor === 'string' ? params.cursor : 0) || 0;
  const next = offset + limit < all.length ? String(offset + limit) : '';
  return { items: all.slice(offset, offset + limit), next };
}

function page(
  all: readonly FakeMessage[],
  params: Record<string, unknown>,
  wire: (message: FakeMessage) => Record<string, unknown>,
): Record<string, unknown> {
  const { items, next } = pageOf(all, params);
  return {
    ok: true,
    messages: items.map(wire),
    has_more: next !== '',
    response_metadata: { next_cursor: next },
  };
}

function wireMessage(
  message: FakeMessage,
  identity: FakeIdentity,
  withMetadata: boolean,
): Record<string, unknown> {
  if (message.user) {
    return {
      type: 'message',
      user: message.user,
      text: message.text,
      ts: message.ts,
      ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    };
  }
  return {
    type: 'message',
    subtype: 'bot_message',
    user: identity.botUserId,
    bot_id: identity.botId,
    text: message.text,
    ts: message.ts,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
    ...(message.blocks.length > 0 ? { blocks: message.blocks } : {}),
    ...(withMetadata && message.metadata ? { metadata: message.metadata } : {}),
  };
}

/** A stream's text grows by its markdown chunks; its tasks take the latest state of each id. */
function withChunks(message: FakeMessage, chunks: unknown): FakeMessage {
  let text = message.text;
  const tasks = { ...message.tasks };
  for (const chunk of Array.isArray(chunks) ? (chunks as Record<string, unknown>[]) : []) {
    if (chunk.type === 'markdown_text' && typeof chunk.text === 'string') text += chunk.text;
    if (chunk.type === 'task_update' && typeof chunk.id === 'string')
      tasks[chunk.id] = { title: String(chunk.title ?? ''), status: String(chunk.status ?? '') };
  }
  return { ...message, text, tasks };
}

function blocksOf(params: Record<string, unknown>): Record<string, unknown>[] {
  return Array.isArray(params.blocks) ? (params.blocks as Record<string, unknown>[]) : [];
}

function metadataOf(value: unknown): FakeMetadata | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { event_type: eventType, event_payload: payload } = value as Record<string, unknown>;
  if (typeof eventType !== 'string') return undefined;
  return {
    event_type: eventType,
    event_payload:
      typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {},
  };
}
