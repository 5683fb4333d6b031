import { Ajv } from 'ajv';
import type { Logger } from 'pino';
import type { Tool } from '../agent/tool.js';
import type { McpServerConfig } from '../config-mcp-servers.js';
import { describeError } from '../errors.js';
import { McpServersUnavailableError } from './mcp-errors.js';
import { McpServerConnection, type McpServerState } from './mcp-server-connection.js';
import { createMcpTool } from './mcp-tool.js';

export interface McpToolSourceOptions {
  readonly logger: Logger;
  readonly redact: (text: string) => string;
  /** The basics a local server inherits (see `toolEnvironment`): never holdfast's own secrets. */
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly restartDelayMs?: number;
  /** The clock OAuth access tokens expire by. */
  readonly now?: () => number;
}

/** The connected servers and the tools they offer, as holdfast `Tool`s named `<server>__<tool>`. */
export interface McpToolSource {
  /**
   * The tools the servers list now. One tool keeps one object for as long as the process runs, so a
   * call resumed after a change finds the tool it was made with.
   */
  tools(): readonly Tool[];
  /** Calls `listener` whenever a server's list of tools changed; returns a function that stops it. */
  onChange(listener: () => void): () => void;
  /** Each configured server and where it stands, for the log and `/health`. */
  states(): Readonly<Record<string, McpServerState>>;
  close(): Promise<void>;
}

/**
 * Connects every configured server, all at once. A server that cannot start stops start-up (its error
 * names it and the fix) unless it is optional: then its tools are left out, and the log and `/health`
 * say so. A server's tools follow its list: added, changed and removed as it says they changed.
 */
export async function connectMcpServers(
  servers: readonly McpServerConfig[],
  options: McpToolSourceOptions,
): Promise<McpToolSource> {
  const logger = options.logger.child({ component: 'mcp' });
  const listeners = new Set<() => void>();
  const connections = servers.map(
    (config) =>
      new McpServerConnection({
        config,
        logger,
        redact: options.redact,
        baseEnv: options.baseEnv,
        restartDelayMs: options.restartDelayMs,
        now: options.now,
        onToolsChanged: () => {
          for (const listener of listeners) listener();
        },
      }),
  );
  const closeAll = () =>
    Promise.all(connections.map((connection) => connection.close())).then(() => undefined);
  const started = await Promise.allSettled(connections.map((connection) => connection.start()));
  const failures = started.filter(
    (outcome, index): outcome is PromiseRejectedResult =>
      outcome.status === 'rejected' && !connections[index]?.config.optional,
  );
  if (failures.length > 0) {
    await closeAll();
    // Every server that could not start is named at once, one line each.
    if (failures.length === 1) throw failures[0]?.reason;
    throw new McpServersUnavailableError(failures.map((failure) => failure.reason as Error));
  }
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, logger: false });
  const made = new Map<string, Tool>();
  const toolFor = (connection: McpServerConnection, remoteName: string): Tool => {
    const key = `${connection.name}\n${remoteName}`;
    let tool = made.get(key);
    if (!tool) {
      tool = createMcpTool(connection, remoteName, { ajv, redact: options.redact });
      made.set(key, tool);
    }
    return tool;
  };
  const available: McpServerConnection[] = [];
  connections.forEach((connection, index) => {
    const outcome = started[index];
    if (outcome?.status === 'rejected') {
      logger.warn(
        { server: connection.name, err: options.redact(describeError(outcome.reason)) },
        'optional MCP server is unavailable; holdfast starts without its tools',
      );
      return;
    }
    available.push(connection);
    logger.info(
      { server: connection.name, tools: connection.tools.map((tool) => tool.name) },
      'MCP server connected',
    );
  });
  return {
    tools: () =>
      available.flatMap((connection) =>
        connection.tools.map((definition) => toolFor(connection, definition.name)),
      ),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    states: () => Object.fromEntries(connections.map((connection) => [connection.name, connection.state])),
    close: closeAll,
  };
}
