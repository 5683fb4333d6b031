import path from 'node:path';
import type { Logger } from 'pino';
import type { Policy } from '../approvals/policy.js';
import { withApprovers } from '../approvals/with-approvers.js';
import type { Config } from '../config.js';
import { seedDemoWorkdir } from '../local/demo-workdir.js';
import {
  type LocalCredentials,
  type OpenedLocalWorkspace,
  openLocalWorkspace,
} from '../local/open-local-workspace.js';

export interface LocalMode extends OpenedLocalWorkspace {
  /** The policy with the workspace's seeded approvers added. */
  readonly policy: Policy;
}

/**
 * Opens the local workspace beside the database and makes its seeded on-call people approvers. The
 * caller closes `workspace` when start-up fails later or the process stops.
 */
export async function openLocalMode(
  config: Config,
  options: {
    readonly port: number;
    readonly databasePath?: string;
    readonly credentials: LocalCredentials;
    readonly policy: Policy;
    readonly logger: Logger;
    readonly now: () => number;
  },
): Promise<LocalMode> {
  const opened = await openLocalWorkspace({
    port: options.port,
    databasePath: options.databasePath ?? path.join(path.dirname(config.databasePath), 'local-workspace.db'),
    credentials: options.credentials,
    modelLabel:
      config.model.type === 'openai'
        ? `OpenAI ${config.model.model}`
        : 'Demo model — scripted, deterministic',
    logger: options.logger.child({ component: 'local-workspace' }),
    now: options.now,
  });
  const { workspace } = opened;
  // A fresh clone has an empty working directory: the README's "list files" and "read notes.txt" need
  // something to find.
  if (seedDemoWorkdir(config.workdir))
    options.logger.info({ workdir: config.workdir }, 'put demo files in the empty working directory');
  // The seeded on-call people approve in local mode, so the approval flow can be tried at once.
  return {
    ...opened,
    policy: withApprovers(options.policy, workspace.approverUserIds, workspace.approverGroupIds),
  };
}
