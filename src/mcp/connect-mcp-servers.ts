import { Ajv } from 'ajv';
import type { Logger } from 'pino';
import type { Tool } from '../agent/tool.js';
import type { McpServerConfig } from '../config-mcp-servers.js';
import { describeError } from '../errors.js';
import { McpServerConnection, type McpServerState } from './mcp-server-connection.js';
import { createMcpTool } from './mcp-tool.js';

export interface McpToolSourceOptions {
  readonly logger: Logger;
  readonly redact: (text: string) => string;
  /** The basics a local server inherits (see `toolEnvironment`): never holdfast's own secrets. */
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly restartDelayMs?: number;
}

/** The connected servers and the tools they offer, as holdfast `Tool`s named `<server>__<tool>`. */
export interface McpToolSource {
  readonly tools: readonly Tool[];
  /** Each configured server and where it stands, for the log and `/health`. */
  states(): Readonly<Record<string, McpServerState>>;
  close(): Promise<void>;
}

/**
 * Connects every configured server, all at once. A server that cannot start stops start-up (its error
 * names it and the fix) unless it is optional: then its tools are left out, and the log and `/health`
 * say so. Tools are those listed at start; a server that adds one later gets it offered after a restart,
 * while changes to the tools it had apply at once.
 */
export async function connectMcpServers(
  servers: readonly McpServerConfig[],
  options: McpToolSourceOptions,
): Promise<McpToolSource> {
  const logger = options.logger.child({ component: 'mcp' });
  const connections = servers.map(
    (config) =>
      new McpServerConnection({
        config,
        logger,
        redact: options.redact,
        baseEnv: options.baseEnv,
        restartDelayMs: options.restartDelayMs,
      }),
  );
  const closeAll = () =>
    Promise.all(connections.map((connection) => connection.close())).then(() => undefined);
  const started = await Promise.allSettled(connections.map((connection) => connection.start()));
  const failure = started.find(
    (outcome, index): outcome is PromiseRejectedResult =>
      outcome.status === 'rejected' && !connections[index]?.config.optional,
  );
  if (failure) {
    await closeAll();
    throw failure.reason;
  }
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, logger: false });
  const tools: Tool[] = [];
  connections.forEach((connection, index) => {
    const outcome = started[index];
    if (outcome?.status === 'rejected') {
      logger.warn(
        { server: connection.name, err: options.redact(describeError(outcome.reason)) },
        'optional MCP server is unavailable; holdfast starts without its tools',
      );
      return;
    }
    for (const definition of connection.tools) tools.push(createMcpTool(connection, definition.name, ajv));
    logger.info(
      { server: connection.name, tools: connection.tools.map((tool) => tool.name) },
      'MCP server connected',
    );
  });
  return {
    tools,
    states: () => Object.fromEntries(connections.map((connection) => [connection.name, connection.state])),
    close: closeAll,
  };
}
