import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = path.resolve(import.meta.dirname, '..');
const manifest = parse(fs.readFileSync(path.join(root, 'manifest.yml'), 'utf8'));
const slackSources = fs
  .readdirSync(path.join(root, 'src', 'slack'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
  .map((file) => fs.readFileSync(path.join(root, 'src', 'slack', file), 'utf8'))
  .join('\n');

describe('manifest.yml', () => {
  it('subscribes to exactly the events holdfast handles', () => {
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(
      [
        'app_home_opened',
        'app_mention',
        'message.channels',
        'message.groups',
        'message.im',
        'message.mpim',
        'agent_session_stopped',
      ].sort(),
    );
  });

  it('declares the app an agent, so its threads get a session with Slack’s stop button', () => {
    expect(manifest.features.agent_view.agent_description).toEqual(expect.any(String));
    expect(manifest.features.assistant_view).toBeUndefined();
    expect(slackSources).toContain("app.event('agent_session_stopped'");
  });

  it('turns on Socket Mode, interactivity, App Home and /approvals', () => {
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.features.slash_commands.map((command: { command: string }) => command.command)).toEqual([
      '/approvals',
    ]);
  });

  it('asks for a scope for every Web API method holdfast calls, and no others', () => {
    // Methods on public, private, DM and group DM conversations need the read scope of each kind.
    const conversationRead = ['channels:read', 'groups:read', 'im:read', 'mpim:read'];
    const conversationHistory = ['channels:history', 'groups:history', 'im:history', 'mpim:history'];
    const methodScopes: Record<string, readonly string[]> = {
      'chat.postMessage': ['chat:write'],
      'chat.startStream': ['chat:write'],
      'chat.appendStream': ['chat:write'],
      'chat.stopStream': ['chat:write'],
      'conversations.replies': conversationHistory,
      'conversations.history': conversationHistory,
      'chat.update': ['chat:write'],
      'chat.postEphemeral': ['chat:write'],
      'reactions.add': ['reactions:write'],
      'reactions.remove': ['reactions:write'],
      'users.info': ['users:read'],
      'usergroups.users.list': ['usergroups:read'],
      'assistant.threads.setStatus': ['assistant:write'],
      'agents.sessions.setStatus': ['assistant:write', 'chat:write'],
      'conversations.info': conversationRead,
      'conversations.members': conversationRead,
      // Opening the app's DM with a person (approvers' copies of a card, notices to a requester).
      'conversations.open': ['im:write'],
    };
    const called = new Set(
      [...slackSources.matchAll(/client\.([a-zA-Z]+(?:\.[a-zA-Z]+)+)/g)].map((m) => m[1]),
    );
    const needed = new Set([...called].flatMap((method) => methodScopes[method as string] ?? []));
    // Events and the command need their own scopes; views.publish, views.open and chat.getPermalink need none.
    for (const scope of ['app_mentions:read', 'channels:history', 'groups:history', 'im:history', 'commands'])
      needed.add(scope);
    expect(new Set(manifest.oauth_config.scopes.bot)).toEqual(needed);
  });
});
