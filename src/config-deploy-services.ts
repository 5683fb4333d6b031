import { z } from 'zod';
import { ConfigError } from './errors.js';

/** The deploy tool's services by name (`HOLDFAST_DEPLOY_SERVICES`). */
export type DeployServices = Readonly<Record<string, { command: string; cwd?: string; timeoutMs?: number }>>;

export const deployServicesHint = 'Use JSON such as {"api": {"command": "./deploy.sh api"}}.';

const deployServicesSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'service names are lowercase words'),
  z.strictObject({
    command: z.string().min(1),
    cwd: z.string().optional(),
    timeoutMs: z.number().int().positive().optional(),
  }),
);

export function parseDeployServices(text: string | undefined): DeployServices {
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`HOLDFAST_DEPLOY_SERVICES is not valid JSON. ${deployServicesHint}`, [], {
      cause: error,
    });
  }
  const parsed = deployServicesSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new ConfigError(`HOLDFAST_DEPLOY_SERVICES is invalid:\n  ${issues.join('\n  ')}`, issues);
  }
  return parsed.data;
}
