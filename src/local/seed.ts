/** The people, channels and group a fresh local workspace starts with. */
export interface LocalUser {
  readonly id: string;
  readonly name: string;
  readonly realName: string;
  readonly role: string;
  readonly dm: string;
}

export interface LocalChannel {
  readonly id: string;
  readonly name: string;
  readonly type: 'channel' | 'im';
  /** For a DM: the one person who sees it (with the bot). */
  readonly member?: string;
}

export const localTeam = { id: 'T0LOCAL', name: 'holdfast local', domain: 'holdfast-local' } as const;
export const localBot = { userId: 'U0HOLDFAST', botId: 'B0HOLDFAST', name: 'holdfast', appId: 'A0HOLDFAST' };

export const localUsers: readonly LocalUser[] = [
  { id: 'U0ALICE', name: 'alice', realName: 'Alice', role: 'requester', dm: 'D0ALICE' },
  { id: 'U0BOB', name: 'bob', realName: 'Bob', role: 'on-call approver', dm: 'D0BOB' },
  { id: 'U0CAROL', name: 'carol', realName: 'Carol', role: 'may not approve', dm: 'D0CAROL' },
];

export const localGroups = [{ id: 'S0ONCALL', handle: 'oncall', members: ['U0BOB'] }] as const;

export const localChannels: readonly LocalChannel[] = [
  { id: 'C0OPS', name: 'ops', type: 'channel' },
  { id: 'C0GENERAL', name: 'general', type: 'channel' },
  ...localUsers.map((user): LocalChannel => ({ id: user.dm, name: user.name, type: 'im', member: user.id })),
];

export const localApprovers = { users: ['U0BOB'], groups: ['S0ONCALL'] } as const;

export function findUser(id: string): LocalUser | undefined {
  return localUsers.find((user) => user.id === id || user.name === id);
}

export function findChannel(id: string): LocalChannel | undefined {
  return localChannels.find((channel) => channel.id === id);
}

/** Slack accepts a user id as a channel and means that person's DM with the bot. */
export function resolveChannel(id: string): LocalChannel | undefined {
  const user = localUsers.find((candidate) => candidate.id === id);
  return findChannel(user ? user.dm : id);
}
