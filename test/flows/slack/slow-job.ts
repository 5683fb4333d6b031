import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Tool } from '../../../src/agent/tool.js';
import { defineTool } from '../../../src/tools/define-tool.js';
import { runProcess } from '../../../src/tools/run-process.js';
import { tempDir } from '../../support/temp-dir.js';
import { eventually } from './slack-harness.js';

export interface SlowJob {
  /** `slow_job`: allowed without approval, runs until it is stopped (or 30 s pass). */
  readonly tool: Tool;
  /** One entry per time the tool ran. */
  readonly runs: string[];
  /** Waits for the job's background child to start and returns its pid. */
  started(): Promise<number>;
}

/** A job worth stopping, for the Stop tests: a shell that waits on a background child of its own. */
export function slowJob(dirPrefix: string): SlowJob {
  const dir = tempDir(dirPrefix);
  const pidFile = path.join(dir.path, 'job.pid');
  const runs: string[] = [];
  const tool = defineTool({
    name: 'slow_job',
    description: 'Runs the nightly job.',
    parameters: z.object({}),
    permission: () => ({ type: 'allow', reason: 'test' }),
    async execute(_args, context) {
      runs.push('slow_job');
      // The job's own child, in the background: Stop must kill the whole group, not just the shell.
      const outcome = await runProcess({
        command: `sleep 30 & echo $! > '${pidFile}'; wait`,
        cwd: dir.path,
        env: { PATH: process.env.PATH ?? '' },
        timeoutMs: 60_000,
        outputLimit: 10_000,
        signal: context.signal,
      });
      return outcome.aborted ? 'aborted' : 'finished';
    },
  });
  return {
    tool: tool as Tool,
    runs,
    async started() {
      await eventually(
        () => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '',
        'the job to start',
      );
      return Number(readFileSync(pidFile, 'utf8').trim());
    },
  };
}

/** Whether a process still runs (signal 0 checks without sending anything). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
