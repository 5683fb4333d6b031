import type { Tool } from '../agent/tool.js';
import { createDelegateTool } from './delegate.js';
import { createDeployTool, type DeployService } from './deploy.js';
import { createHttpRequestTool } from './http-request.js';
import { createListFilesTool } from './list-files.js';
import { createReadFileTool } from './read-file.js';
import { createRunShellTool } from './run-shell.js';
import { createSqlQueryTool } from './sql-query.js';

export { defineTool, type ToolDefinition } from './define-tool.js';
export { loadPlugins, PluginLoadError } from './load-plugins.js';

export interface BuiltinToolOptions {
  readonly workdir: string;
  /** The process environment; each tool passes on only its allow-list. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly shellTimeoutMs: number;
  readonly httpAllowHosts: readonly string[];
  /** Exact hosts `http_request` may reach at loopback, private or other internal addresses. */
  readonly httpInternalHosts: readonly string[];
  readonly sqlUrl?: string;
  /** holdfast's own database: `sqlUrl` naming it (under any name) stops start-up. */
  readonly holdfastDatabasePath: string;
  readonly deployServices: Readonly<Record<string, DeployService>>;
}

/** The tools every holdfast has; `sql_query` and `deploy` only when they are configured. */
export function createBuiltinTools(options: BuiltinToolOptions): Tool[] {
  const tools: Tool[] = [
    createRunShellTool({ workdir: options.workdir, env: options.env, timeoutMs: options.shellTimeoutMs }),
    createHttpRequestTool({ allowHosts: options.httpAllowHosts, internalHosts: options.httpInternalHosts }),
    createReadFileTool(options.workdir),
    createListFilesTool(options.workdir),
  ] as Tool[];
  if (options.sqlUrl) {
    tools.push(
      createSqlQueryTool({ url: options.sqlUrl, holdfastDatabasePath: options.holdfastDatabasePath }) as Tool,
    );
  }
  if (Object.keys(options.deployServices).length > 0) {
    tools.push(
      createDeployTool({
        services: options.deployServices,
        workdir: options.workdir,
        env: options.env,
      }) as Tool,
    );
  }
  const nested = [...tools];
  tools.push(createDelegateTool(() => nested) as Tool);
  return tools;
}
