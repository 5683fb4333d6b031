import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { Race } from './store-race-message.js';

const replySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('done'), outcomes: z.array(z.string()) }),
  z.object({ type: z.literal('failed'), error: z.string() }),
]);

export type { Race };

export interface RaceProcess {
  /** Runs the race and returns one outcome per id. */
  run(race: Race): Promise<string[]>;
  stop(): Promise<void>;
}

async function reply(child: ChildProcess): Promise<z.output<typeof replySchema>> {
  const [message] = await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(() => {
      throw new Error(`race process exited with ${child.exitCode}`);
    }),
  ]);
  return replySchema.parse(message);
}

/**
 * A process with its own connection to `file`, as `owner`. It commits without fsync: the races are about
 * locks, not durability, and a sync per commit would only slow them down.
 */
export async function startRaceProcess(file: string, owner: string): Promise<RaceProcess> {
  const script = fileURLToPath(new URL('./store-race-child.ts', import.meta.url));
  const child = fork(script, [file, owner], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const ready = await reply(child);
  if (ready.type !== 'ready') throw new Error(`race process did not start: ${JSON.stringify(ready)}`);
  return {
    async run(race) {
      child.send(race);
      const answer = await reply(child);
      if (answer.type !== 'done') throw new Error(`race failed in ${owner}: ${JSON.stringify(answer)}`);
      return answer.outcomes;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}
