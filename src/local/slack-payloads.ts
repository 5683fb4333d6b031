import { randomUUID } from 'node:crypto';
import { triggerIdFor } from './local-modals.js';
import { findUser, localBot, localTeam } from './seed.js';

/** The `event_callback` envelope Slack wraps every Events API event in. */
export function eventEnvelope(event: Record<string, unknown>, nowMs: number): Record<string, unknown> {
  return {
    token: 'local',
    team_id: localTeam.id,
    api_app_id: localBot.appId,
    event,
    type: 'event_callback',
    event_id: `Ev${randomUUID().replaceAll('-', '').slice(0, 12).toUpperCase()}`,
    event_time: Math.floor(nowMs / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: localTeam.id,
        user_id: localBot.userId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

/** The parts of a `block_actions` payload shared by clicks on messages and on the App Home view. */
export function blockActionsBase(
  input: {
    readonly user: string;
    readonly action_id: string;
    readonly value: string;
    readonly block_id?: string;
  },
  nowMs: number,
): Record<string, unknown> {
  const user = findUser(input.user);
  return {
    type: 'block_actions',
    user: { id: input.user, username: user?.name, name: user?.name, team_id: localTeam.id },
    api_app_id: localBot.appId,
    token: 'local',
    trigger_id: triggerIdFor(input.user, nowMs),
    team: { id: localTeam.id, domain: localTeam.domain },
    enterprise: null,
    is_enterprise_install: false,
    actions: [
      {
        type: 'button',
        action_id: input.action_id,
        block_id: input.block_id ?? 'local',
        value: input.value,
        action_ts: String(nowMs / 1000),
      },
    ],
  };
}
