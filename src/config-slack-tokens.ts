import { z } from 'zod';

/** A Slack token of the wrong kind is named as such: the usual mistake is pasting the other one. */
export const slackToken = (prefix: string, expected: string) =>
  z
    .string()
    .optional()
    .check((context) => {
      const value = context.value;
      if (value === undefined || value.startsWith(prefix)) return;
      const found = tokenKinds.find(([kind]) => value.startsWith(kind));
      context.issues.push({
        code: 'custom',
        input: value,
        message: `${expected} starting with ${prefix}${found ? ` (this is ${found[1]})` : ''}`,
      });
    });

const tokenKinds: ReadonlyArray<[prefix: string, kind: string]> = [
  ['xoxb-', 'a bot token, xoxb-, which belongs in SLACK_BOT_TOKEN'],
  ['xapp-', 'an app-level token, xapp-, which belongs in SLACK_APP_TOKEN'],
  ['xoxp-', 'a user token, xoxp-; holdfast acts as its bot, never as a person'],
];
