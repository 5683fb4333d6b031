import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import type { ProcessGroups } from './process-groups.js';
import { processOutput, runProcess } from './run-process.js';
import { toolEnvironment } from './tool-environment.js';
import { resolveInWorkdir } from './workdir-path.js';

export interface RunShellOptions {
  readonly workdir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `HOLDFAST_TOOL_ENV`: more variables from `env` that commands get. */
  readonly passEnv?: readonly string[];
  readonly timeoutMs: number;
  readonly outputLimit?: number;
  /** Where the commands' process groups are kept, so holdfast ends them before it exits. */
  readonly groups?: ProcessGroups;
  /** The machine's name as approvers know it; the OS host name unless given. */
  readonly host?: string;
}

export function createRunShellTool(options: RunShellOptions) {
  const host = options.host ?? hostname();
  return defineTool({
    name: 'run_shell',
    description:
      'Run a shell command (sh -c) in the working directory. Always needs a human approval unless a policy rule allows it. Returns the output and the exit code.',
    parameters: z.object({
      command: z.string().min(1).max(4_000).describe('The exact command line to run'),
      cwd: z.string().optional().describe('A directory relative to the working directory'),
    }),
    permissionTypes: ['shell'],
    permission: (args) => ({
      type: 'ask',
      permissionType: 'shell',
      summary: `run \`${args.command}\``,
    }),
    // Where the card says it runs: the directory as asked (execute refuses one that leaves the workdir).
    effects: (args) => ({
      workdir: args.cwd ? path.resolve(options.workdir, args.cwd) : options.workdir,
      host,
      changes:
        'anything holdfast’s user may change on this host: files, processes, and what the network reaches',
    }),
    async execute(args, ctx) {
      const cwd = args.cwd ? await resolveInWorkdir(options.workdir, args.cwd) : options.workdir;
      const outcome = await runProcess({
        command: args.command,
        cwd,
        env: toolEnvironment(options.env, {}, options.passEnv),
        timeoutMs: options.timeoutMs,
        outputLimit: options.outputLimit ?? 16_000,
        signal: ctx.signal,
        groups: options.groups,
      });
      return processOutput(outcome, options.timeoutMs);
    },
  });
}
