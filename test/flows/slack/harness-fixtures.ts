/** Who and what the Slack harness's workspace holds: its people, the on-call group, the ops channel, a tool. */
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import type { FakeSlackApi } from '../../support/fake-slack-api.js';

/** The people in the test workspace. */
export const people = {
  alice: 'U0ALICE',
  bob: 'U0BOB',
  carol: 'U0CAROL',
  mallory: 'U0MALLORY',
} as const;
export const oncallGroup = 'S0ONCALL';
export const channel = 'C0OPS';

/** Puts the people, the on-call group and the ops channel into the fake workspace. */
export function seedWorkspace(api: FakeSlackApi): void {
  api.setUser(people.alice, { name: 'alice' });
  api.setUser(people.bob, { name: 'bob' });
  api.setUser(people.carol, { name: 'carol' });
  api.setUser(people.mallory, { name: 'mallory' });
  api.setGroupMembers(oncallGroup, [people.carol]);
  api.setChannel(channel, { name: 'ops', members: Object.values(people) });
}

/** A tool that needs approval and counts how often it really ran. */
export function countingShellTool(name = 'ops_shell'): { tool: Tool; runs: string[] } {
  const runs: string[] = [];
  const tool = defineTool({
    name,
    description: 'Runs a shell command on the ops host.',
    parameters: z.object({ command: z.string() }),
    permission: (args) => ({ type: 'ask', permissionType: 'shell', summary: `run \`${args.command}\`` }),
    execute: (args) => {
      runs.push(args.command);
      return `ran: ${args.command}`;
    },
  });
  return { tool: tool as Tool, runs };
}

/** An `app_mention` of holdfast by alice in the ops channel, as Slack sends it. */
export function mentionEvent(botUserId: string, ts: string, text = 'how full is the disk?') {
  return { type: 'app_mention', user: people.alice, text: `<@${botUserId}> ${text}`, ts, channel };
}

let tsCounter = 0;
/** Slack-looking ts values for messages people post; unique within a test run. */
export function userTs(): string {
  tsCounter += 1;
  return `1767220000.${String(tsCounter).padStart(6, '0')}`;
}
