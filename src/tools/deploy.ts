import { hostname } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ToolRefusedError } from '../agent/tool-refused-error.js';
import { ConfigError } from '../errors.js';
import { defineTool } from './define-tool.js';
import { deployRefProblem, deployServiceName, describeRefRefusal } from './deploy-ref.js';
import type { ProcessGroups } from './process-groups.js';
import { processOutput, runProcess } from './run-process.js';
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
  /** `HOLDFAST_TOOL_ENV`: more variables from `env` that the deploy command gets. */
  readonly passEnv?: readonly string[];
  /** Where the commands' process groups are kept, so holdfast ends them before it exits. */
  readonly groups?: ProcessGroups;
  /** The machine's name as approvers know it; the OS host name unless given. */
  readonly host?: string;
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
  for (const name of names) {
    if (!deployServiceName.test(name)) {
      throw new ConfigError(
        `HOLDFAST_DEPLOY_SERVICES: the service name ${JSON.stringify(name)} is refused; use lowercase letters, ` +
          'digits, "_" and "-", starting with a letter or digit (the name reaches the deploy command).',
      );
    }
  }
  const host = options.host ?? hostname();
  const cwdOf = (service: DeployService) =>
    service.cwd ? path.resolve(options.workdir, service.cwd) : options.workdir;
  return defineTool({
    name: 'deploy',
    description: `Deploy a service. Services: ${names.join(', ')}. Always needs approval.`,
    parameters: z.object({
      service: z.enum([first, ...rest], { error: `one of the configured services: ${names.join(', ')}` }),
      ref: z
        .string()
        .superRefine((ref, ctx) => {
          const problem = deployRefProblem(ref);
          if (problem !== undefined)
            ctx.addIssue({ code: 'custom', message: describeRefRefusal(ref, problem) });
        })
        .optional()
        .describe('What to deploy (branch, tag or commit); the service default when absent'),
    }),
    permissionTypes: ['deploy'],
    permission: (args) => ({
      type: 'ask',
      permissionType: 'deploy',
      summary: `deploy ${args.service}${args.ref ? ` at ${args.ref}` : ''}`,
    }),
    // The card shows the configured command, since the model only picks the service and the ref.
    effects: (args) => {
      const service = options.services[args.service];
      return {
        deploy: { service: args.service, ref: args.ref },
        ...(service ? { command: service.command, workdir: cwdOf(service) } : {}),
        host,
        changes: `the running ${args.service} service: whatever its deploy command does`,
      };
    },
    async execute(args, ctx) {
      // parse already refused these; a direct caller must not get around it.
      const problem = args.ref === undefined ? undefined : deployRefProblem(args.ref);
      if (args.ref !== undefined && problem !== undefined)
        throw new ToolRefusedError(describeRefRefusal(args.ref, problem));
      const service = options.services[args.service];
      if (!service) return `Unknown service ${args.service}.`;
      const timeoutMs = service.timeoutMs ?? 15 * 60_000;
      const outcome = await runProcess({
        command: service.command,
        cwd: cwdOf(service),
        env: toolEnvironment(
          options.env,
          {
            HOLDFAST_DEPLOY_SERVICE: args.service,
            ...(args.ref ? { HOLDFAST_DEPLOY_REF: args.ref } : {}),
          },
          options.passEnv,
        ),
        timeoutMs,
        outputLimit: 16_000,
        groups: options.groups,
        signal: ctx.signal,
      });
      return processOutput(outcome, timeoutMs);
    },
  });
}
