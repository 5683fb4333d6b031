import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { describeProcess, runProcess } from './run-process.js';
import { toolEnvironment } from './tool-environment.js';

export interface DeployService {
  readonly command: string;
  readonly cwd?: string;
  readonly timeoutMs?: number;
}

export interface DeployOptions {
  readonly services: Readonly<Record<string, DeployService>>;
  readonly workdir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Deploys a configured service. The model picks a service name and a ref, never a command: what runs is
 * exactly what the operator configured, and it always asks (permission type `deploy`, so policy can send
 * it to a release group).
 */
export function createDeployTool(options: DeployOptions) {
  const names = Object.keys(options.services);
  const [first, ...rest] = names;
  if (first === undefined) throw new TypeError('createDeployTool needs at least one service');
  return defineTool({
    name: 'deploy',
    description: `Deploy a service. Services: ${names.join(', ')}. Always needs approval.`,
    parameters: z.object({
      service: z.enum([first, ...rest]),
      ref: z
        .string()
        .regex(/^[\w./-]{1,100}$/, 'a branch, tag or commit')
        .optional()
        .describe('What to deploy (branch, tag or commit); the service default when absent'),
    }),
    permission: (args) => ({
      type: 'ask',
      permissionType: 'deploy',
      summary: `deploy ${args.service}${args.ref ? ` at ${args.ref}` : ''}`,
    }),
    async execute(args, ctx) {
      const service = options.services[args.service];
      if (!service) return `Unknown service ${args.service}.`;
      const timeoutMs = service.timeoutMs ?? 15 * 60_000;
      const outcome = await runProcess({
        command: service.command,
        cwd: service.cwd ? path.resolve(options.workdir, service.cwd) : options.workdir,
        env: toolEnvironment(options.env, {
          HOLDFAST_DEPLOY_SERVICE: args.service,
          ...(args.ref ? { HOLDFAST_DEPLOY_REF: args.ref } : {}),
        }),
        timeoutMs,
        outputLimit: 16_000,
        signal: ctx.signal,
      });
      return describeProcess(outcome, timeoutMs);
    },
  });
}
