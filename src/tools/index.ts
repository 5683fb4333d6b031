import type { Tool } from '../agent/tool.js';
import type { PolicyVocabulary } from '../approvals/policy-names.js';
import { createDelegateTool } from './delegate.js';
import { createDeployTool, type DeployService } from './deploy.js';
import { createHttpRequestTool } from './http-request.js';
import { createListFilesTool } from './list-files.js';
import type { ProcessGroups } from './process-groups.js';
import { createReadFileTool } from './read-file.js';
import { createRunShellTool } from './run-shell.js';
import { createSqlQueryTool } from './sql-query.js';

export { defineTool, type ToolDefinition } from './define-tool.js';
export { loadPlugins, PluginLoadError } from './load-plugins.js';
export { ProcessGroups } from './process-groups.js';

export interface BuiltinToolOptions {
  readonly workdir: string;
  /** The process environment; each tool passes on only its allow-list. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `HOLDFAST_TOOL_ENV`: variables from `env` passed to commands beyond the allow-list. */
  readonly passEnv?: readonly string[];
  readonly shellTimeoutMs: number;
  readonly httpAllowHosts: readonly string[];
  /** Exact hosts `http_request` may reach at loopback, private or other internal addresses. */
  readonly httpInternalHosts: readonly string[];
  readonly sqlUrl?: string;
  /** holdfast's own database: `sqlUrl` naming it (under any name) stops start-up. */
  readonly holdfastDatabasePath: string;
  readonly deployServices: Readonly<Record<string, DeployService>>;
  /** Where `run_shell` and `deploy` keep their commands' process groups (see `ProcessGroups`). */
  readonly processGroups?: ProcessGroups;
}

/**
 * Every built-in tool and the permission types it asks under, configured here or not: a policy file may
 * be shared by deployments that configure different tools, so `deploy` is never a typo.
 */
export const BUILTIN_TOOL_VOCABULARY: readonly { tool: string; permissionTypes: readonly string[] }[] = [
  { tool: 'run_shell', permissionTypes: ['shell'] },
  { tool: 'http_request', permissionTypes: ['http'] },
  { tool: 'read_file', permissionTypes: [] },
  { tool: 'list_files', permissionTypes: [] },
  { tool: 'sql_query', permissionTypes: ['sql_write'] },
  { tool: 'deploy', permissionTypes: ['deploy'] },
  { tool: 'delegate', permissionTypes: [] },
];

/** The names a policy may use: every built-in tool (configured or not) and every tool loaded. */
export function policyVocabulary(tools: readonly Tool[]): PolicyVocabulary {
  return [
    ...BUILTIN_TOOL_VOCABULARY,
    ...tools.map((tool) => ({ tool: tool.name, permissionTypes: tool.permissionTypes })),
  ];
}

/** The tools every holdfast has; `sql_query` and `deploy` only when they are configured. */
export function createBuiltinTools(options: BuiltinToolOptions): Tool[] {
  const tools: Tool[] = [
    createRunShellTool({
      workdir: options.workdir,
      env: options.env,
      passEnv: options.passEnv,
      timeoutMs: options.shellTimeoutMs,
      groups: options.processGroups,
    }),
    createHttpRequestTool({ allowHosts: options.httpAllowHosts, internalHosts: options.httpInternalHosts }),
    createReadFileTool(options.workdir),
    createListFilesTool(options.workdir),
  ];
  if (options.sqlUrl) {
    tools.push(
      createSqlQueryTool({ url: options.sqlUrl, holdfastDatabasePath: options.holdfastDatabasePath }),
    );
  }
  if (Object.keys(options.deployServices).length > 0) {
    tools.push(
      createDeployTool({
        services: options.deployServices,
        workdir: options.workdir,
        env: options.env,
        passEnv: options.passEnv,
        groups: options.processGroups,
      }),
    );
  }
  const nested = [...tools];
  tools.push(createDelegateTool(() => nested));
  return tools;
}
