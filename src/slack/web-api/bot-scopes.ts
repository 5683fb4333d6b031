/**
 * The bot scopes manifest.yml grants, which holdfast needs to work; a test keeps the two lists equal. Kept
 * in code rather than read from manifest.yml, so a compiled build needs nothing beside `dist/`.
 */
export const BOT_SCOPES: readonly string[] = [
  'app_mentions:read',
  'channels:history',
  'groups:history',
  'im:history',
  'mpim:history',
  'chat:write',
  'reactions:write',
  'users:read',
  'usergroups:read',
  'channels:read',
  'groups:read',
  'im:read',
  'im:write',
  'mpim:read',
  'commands',
  'assistant:write',
];
