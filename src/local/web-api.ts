import { type LocalModals, userOfTrigger } from './local-modals.js';
import { type LocalStore, localMetadataSchema } from './local-store.js';
import { answerStreamCall } from './local-streams.js';
import { readConversation } from './read-conversations.js';
import {
  findUser,
  localBot,
  localChannels,
  localGroups,
  localTeam,
  localUsers,
  resolveChannel,
} from './seed.js';
import { wireMessage } from './wire-message.js';

export type WebApiParams = Record<string, unknown>;
export type WebApiResponse = Record<string, unknown>;

export interface WebApiDeps {
  readonly store: LocalStore;
  readonly modals: LocalModals;
  readonly origin: () => string;
  /** Called after anything the page shows has changed. */
  readonly changed: () => void;
}

/** JSON-valued form fields the WebClient sends as strings. */
const jsonFields = new Set(['blocks', 'attachments', 'view', 'metadata', 'chunks']);

export function parseWebApiParams(raw: string, contentType: string | undefined): WebApiParams {
  if (contentType?.includes('application/json')) {
    const value = safeJson(raw);
    return value !== null && typeof value === 'object' ? (value as WebApiParams) : {};
  }
  const params: WebApiParams = {};
  for (const [name, value] of new URLSearchParams(raw))
    params[name] = jsonFields.has(name) ? safeJson(value) : value;
  return params;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const botAuthor = { user: localBot.userId, botId: localBot.botId };

/** Slack's Web API methods holdfast calls, answered in Slack's shapes from the local store. */
export function answerWebApi(deps: WebApiDeps, method: string, params: WebApiParams): WebApiResponse {
  const text = (name: string) => (typeof params[name] === 'string' ? (params[name] as string) : undefined);
  const blocks = Array.isArray(params.blocks) ? (params.blocks as unknown[]) : undefined;
  const { store } = deps;
  switch (method) {
    case 'auth.test':
      return {
        ok: true,
        url: `${deps.origin()}/`,
        team: localTeam.name,
        user: localBot.name,
        team_id: localTeam.id,
        user_id: localBot.userId,
        bot_id: localBot.botId,
        is_enterprise_install: false,
      };
    case 'chat.postMessage': {
      const channel = resolveChannel(text('channel') ?? '');
      if (!channel) return { ok: false, error: 'channel_not_found' };
      if (!text('text') && !blocks) return { ok: false, error: 'no_text' };
      const threadTs = text('thread_ts');
      if (threadTs && !store.message(channel.id, threadTs)) return { ok: false, error: 'thread_not_found' };
      const metadata = localMetadataSchema.safeParse(params.metadata);
      if (params.metadata !== undefined && !metadata.success)
        return { ok: false, error: 'invalid_metadata_format' };
      const message = store.addMessage({
        ...botAuthor,
        channel: channel.id,
        threadTs,
        text: text('text') ?? '',
        blocks: blocks ?? [],
        ...(metadata.success ? { metadata: metadata.data } : {}),
      });
      deps.changed();
      return { ok: true, channel: channel.id, ts: message.ts, message: wireMessage(message) };
    }
    case 'chat.update': {
      const channel = resolveChannel(text('channel') ?? '');
      const ts = text('ts') ?? '';
      const updated = channel && store.updateMessage(channel.id, ts, { text: text('text'), blocks });
      if (!updated) return { ok: false, error: 'message_not_found' };
      deps.changed();
      return { ok: true, channel: updated.channel, ts, text: updated.text, message: wireMessage(updated) };
    }
    case 'chat.postEphemeral': {
      const channel = resolveChannel(text('channel') ?? '');
      const user = findUser(text('user') ?? '');
      if (!channel) return { ok: false, error: 'channel_not_found' };
      if (!user) return { ok: false, error: 'user_not_in_channel' };
      const ephemeral = store.addEphemeral({
        channel: channel.id,
        user: user.id,
        threadTs: text('thread_ts'),
        text: text('text') ?? '',
        blocks: blocks ?? [],
      });
      deps.changed();
      return { ok: true, message_ts: ephemeral.ts };
    }
    case 'chat.getPermalink': {
      const channel = text('channel') ?? '';
      const ts = text('message_ts') ?? '';
      if (!store.message(channel, ts)) return { ok: false, error: 'message_not_found' };
      return { ok: true, channel, permalink: `${deps.origin()}/#${channel}/${ts}` };
    }
    case 'reactions.add':
    case 'reactions.remove': {
      const reaction = {
        channel: text('channel') ?? '',
        ts: text('timestamp') ?? '',
        name: text('name') ?? '',
        user: localBot.userId,
      };
      if (!store.message(reaction.channel, reaction.ts)) return { ok: false, error: 'message_not_found' };
      if (method === 'reactions.add' && !store.addReaction(reaction))
        return { ok: false, error: 'already_reacted' };
      if (method === 'reactions.remove' && !store.removeReaction(reaction))
        return { ok: false, error: 'no_reaction' };
      deps.changed();
      return { ok: true };
    }
    case 'users.info': {
      const id = text('user') ?? '';
      if (id === localBot.userId)
        return { ok: true, user: userShape(id, localBot.name, localBot.name, true) };
      const user = findUser(id);
      if (!user || user.id !== id) return { ok: false, error: 'user_not_found' };
      return { ok: true, user: userShape(user.id, user.name, user.realName, false) };
    }
    case 'usergroups.users.list': {
      const group = localGroups.find((candidate) => candidate.id === text('usergroup'));
      return group ? { ok: true, users: [...group.members] } : { ok: false, error: 'no_such_subteam' };
    }
    case 'conversations.info': {
      const channel = localChannels.find((candidate) => candidate.id === text('channel'));
      if (!channel) return { ok: false, error: 'channel_not_found' };
      return {
        ok: true,
        channel: {
          id: channel.id,
          name: channel.name,
          is_channel: channel.type === 'channel',
          is_im: channel.type === 'im',
          is_private: channel.type === 'im',
          is_member: true,
          ...(channel.member ? { user: channel.member } : {}),
        },
      };
    }
    case 'conversations.members': {
      const channel = localChannels.find((candidate) => candidate.id === text('channel'));
      if (!channel) return { ok: false, error: 'channel_not_found' };
      // Everyone is in the public channels; a DM holds its person and the bot.
      const members = channel.member ? [channel.member] : localUsers.map((user) => user.id);
      return { ok: true, members: [...members, localBot.userId], response_metadata: { next_cursor: '' } };
    }
    case 'views.push':
    case 'views.open': {
      const view = params.view as Record<string, unknown> | undefined;
      const user = findUser(userOfTrigger(text('trigger_id') ?? '') ?? '');
      if (!user) return { ok: false, error: 'invalid_trigger_id' };
      if (view?.type !== 'modal') return { ok: false, error: 'invalid_arguments' };
      const modal = deps.modals.open(user.id, view);
      deps.changed();
      return { ok: true, view: { id: modal.id, team_id: localTeam.id, ...view } };
    }
    case 'views.update': {
      const view = params.view as Record<string, unknown> | undefined;
      if (view?.type !== 'modal') return { ok: false, error: 'invalid_arguments' };
      const modal = deps.modals.update(text('view_id') ?? '', view);
      if (!modal) return { ok: false, error: 'not_found' };
      deps.changed();
      return { ok: true, view: { id: modal.id, team_id: localTeam.id, ...view } };
    }
    case 'views.publish': {
      const view = params.view as Record<string, unknown> | undefined;
      const user = findUser(text('user_id') ?? '');
      if (view?.type !== 'home') return { ok: false, error: 'invalid_arguments' };
      if (!user) return { ok: false, error: 'user_not_found' };
      store.publishView(user.id, view);
      deps.changed();
      return { ok: true, view: { id: `V${user.id}`, team_id: localTeam.id, ...view } };
    }
    case 'conversations.replies':
    case 'conversations.history':
      return readConversation(store, method, params);
    case 'conversations.open': {
      const ids = (text('users') ?? '').split(',').filter((id) => id !== '');
      if (ids.length === 0) return { ok: false, error: 'users_list_not_supplied' };
      // The local workspace has only one-to-one DMs with the bot.
      if (ids.length > 1) return { ok: false, error: 'method_not_supported_for_channel_type' };
      const user = findUser(ids[0] as string);
      if (!user || user.id !== ids[0]) return { ok: false, error: 'user_not_found' };
      return { ok: true, channel: { id: user.dm } };
    }
    case 'chat.startStream':
    case 'chat.appendStream':
    case 'chat.stopStream': {
      const answer = answerStreamCall(store, method, params);
      if (answer.ok) deps.changed();
      return answer;
    }
    // The page shows a turn's state through its reactions and live message; a session's status adds nothing.
    case 'assistant.threads.setStatus':
    case 'agents.sessions.setStatus':
      return { ok: true };
    default:
      return { ok: false, error: 'unknown_method' };
  }
}

function userShape(id: string, name: string, realName: string, isBot: boolean) {
  return {
    id,
    team_id: localTeam.id,
    name,
    real_name: realName,
    is_bot: isBot,
    profile: { display_name: name, real_name: realName },
  };
}
