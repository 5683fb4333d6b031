/** The people, user groups and channels of the fake workspace, and the Web API methods that look them up. */
import { pageOf } from './fake-slack-history.js';
import { stringParam } from './fake-slack-wire.js';
import type { FakeChannel, FakeIdentity } from './fake-slack-workspace.js';

interface FakeProfile {
  readonly name: string;
  readonly realName?: string;
  readonly displayName?: string;
}

export interface FakeDirectory {
  setUser(userId: string, profile: FakeProfile): void;
  setGroupMembers(groupId: string, members: readonly string[]): void;
  setChannel(channelId: string, info: FakeChannel): void;
  /** Slack's answer to a method about people or channels; undefined for any other method. */
  answer(
    method: string,
    params: Record<string, unknown>,
    channel: string,
  ): Record<string, unknown> | undefined;
}

/** The app's DM with a user: Slack takes a user id as `channel` and posts there. */
export function directChannelOf(userId: string): string {
  return `D${userId.slice(1)}`;
}

export function createFakeDirectory(identity: FakeIdentity): FakeDirectory {
  const users = new Map<string, FakeProfile>();
  const groups = new Map<string, readonly string[]>();
  const channels = new Map<string, FakeChannel>();

  const answer = (
    method: string,
    params: Record<string, unknown>,
    channel: string,
  ): Record<string, unknown> | undefined => {
    switch (method) {
      case 'conversations.open': {
        const ids = (stringParam(params, 'users') ?? '').split(',').filter((id) => id !== '');
        if (ids.length === 0) return { ok: false, error: 'users_list_not_supplied' };
        if (ids.length > 1) return { ok: false, error: 'method_not_supported_for_channel_type' };
        const user = ids[0] as string;
        if (!users.has(user)) return { ok: false, error: 'user_not_found' };
        return { ok: true, channel: { id: directChannelOf(user) } };
      }
      case 'users.info': {
        const id = stringParam(params, 'user') ?? '';
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
        const members = groups.get(stringParam(params, 'usergroup') ?? '');
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
      default:
        return undefined;
    }
  };

  return {
    setUser: (userId, profile) => users.set(userId, profile),
    setGroupMembers: (groupId, members) => groups.set(groupId, [...members]),
    setChannel: (channelId, info) => channels.set(channelId, info),
    answer,
  };
}
