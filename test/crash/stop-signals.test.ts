import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { endShellGroupAfterTest, startCrashWorld } from './crash-world.js';

/**
 * The live processes of the group led by `pid`. A zombie is gone already: where nothing reaps orphans
 * (a container's first process may not), it stays listed without running.
 */
function liveMembers(pid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name (which may hold spaces): state, ppid, pgrp, …
    const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(group) === pid && state !== 'Z') members.push(Number(entry));
  }
  return members;
}

const commands = {
  SIGTERM: 'echo "t1 $$" >> runs.log; sleep 600',
  // A command that ignores the polite signal is killed all the same.
  SIGINT: 'trap "" TERM INT; echo "t1 $$" >> runs.log; sleep 600; echo finished >> runs.log',
} as const;

describe('holdfast stopped by a signal to its process group while a command runs', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: the command's process group is ended before holdfast exits, and the call is recorded as interrupted`, async () => {
      const world = await startCrashWorld();
      const first = await world.start('first', {}, { ownGroup: true });
      endShellGroupAfterTest(() => world.markerLines('runs.log'));

      const threadTs = await world.mention(first, `[t1] run: ${commands[signal]}`);
      const card = await world.waitForCard(threadTs);
      expect(await world.click(first, card)).toBe(200);
      await expect.poll(() => world.markerLines('runs.log').length, { timeout: 30_000 }).toBe(1);
      const shellPid = Number(world.markerLines('runs.log')[0]?.split(' ')[1]);
      expect(liveMembers(shellPid)).not.toEqual([]);

      expect(await first.signalGroup(signal)).toBe(0);

      expect(liveMembers(shellPid)).toEqual([]);
      expect(world.markerLines('runs.log')).toHaveLength(1);
      expect(world.rows("SELECT kind, data_json FROM audit_events WHERE kind = 'tool.interrupted'")).toEqual([
        {
          kind: 'tool.interrupted',
          data_json: JSON.stringify({ tool: 'run_shell', toolCallId: 'call_1', reason: 'shutdown' }),
        },
      ]);
      const [result] = world.rows("SELECT content FROM messages WHERE role = 'tool'");
      expect(String(result?.content)).toContain('[stopped before it finished');
      expect(first.logs.some((line) => line.msg === 'tool interrupted: holdfast is shutting down')).toBe(
        true,
      );
    });
  }
});
