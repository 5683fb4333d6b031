import { randomBytes } from 'node:crypto';
import type { SlackMode } from '../config.js';
import type { LocalCredentials } from '../local/open-local-workspace.js';
import type { ConfiguredSecret } from '../secrets/index.js';

function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Local mode's Slack credentials, made fresh at each start; none when holdfast talks to a real Slack. */
export function makeLocalCredentials(slack: SlackMode): LocalCredentials | undefined {
  return slack.type === 'local'
    ? { signingSecret: randomHex(32), botToken: `xoxb-local-${randomHex(12)}` }
    : undefined;
}

/** The local credentials as secrets for the redactor. */
export function localCredentialSecrets(local: LocalCredentials | undefined): ConfiguredSecret[] {
  return local
    ? [
        { name: 'slack signing secret', value: local.signingSecret },
        { name: 'slack bot token', value: local.botToken },
      ]
    : [];
}
