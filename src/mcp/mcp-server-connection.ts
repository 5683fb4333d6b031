import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  type StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
  ErrorCode,
  McpError,
  type Tool as McpToolDefinition,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { McpServerConfig } from '../config-mcp-servers.js';
import { describeError } from '../errors.js';
import { describeAuthFailure } from './mcp-auth-failure.js';
import { McpCallFailedError, McpServerUnavailableError } from './mcp-errors.js';
import { McpOAuthProvider } from './mcp-oauth-provider.js';
import { describeState, type McpServerState } from './mcp-server-state.js';
import { createMcpTransport } from './mcp-transport.js';

export { describeState, type McpServerState } from './mcp-server-state.js';

/** Answers a question (an elicitation) the server asks while it runs one call. */
export type AskDuringCall = (request: ElicitRequest['params']) => Promise<ElicitResult>;
export type { McpToolDefinition };

export interface McpServerConnectionOptions {
  readonly config: McpServerConfig;
  /** Redacting already; the server's stderr is redacted again before it is logged. */
  readonly logger: Logger;
  readonly redact: (text: string) => string;
  /** The environment basics a local server inherits (PATH, HOME…), secrets already left out. */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** The first wait before a crashed server is started again; doubled per failed attempt. */
  readonly restartDelayMs?: number;
  readonly maxRestartDelayMs?: number;
  /** Told when the tools the server lists changed after start (a notification, or a restart). */
  readonly onToolsChanged?: () => void;
  readonly version?: string;
  /** The clock OAuth access tokens expire by. */
  readonly now?: () => number;
}

/**
 * One configured MCP server, connected through the official SDK client. It lists the server's tools at
 * start and again whenever the server says they changed. A local server that exits is started again with
 * backoff; calls in flight when it went fail (the SDK rejects them as the connection closes) and calls
 * made meanwhile fail at once, saying so, rather than wait an unknown time.
 */
export class McpServerConnection {
  readonly config: McpServerConfig;
  readonly #options: McpServerConnectionOptions;
  #client: Client | undefined;
  #tools = new Map<string, McpToolDefinition>();
  #state: McpServerState = { type: 'unavailable', error: 'not started' };
  #closing = false;
  #restartTimer: NodeJS.Timeout | undefined;
  #generation = 0;
  /** The server's last line on stderr: why a local server that would not start said it could not. */
  #lastStderr: string | undefined;
  #renewing: Promise<void> | undefined;
  /** Each tool's definition before its last change, so people can be told what changed. */
  readonly #previous = new Map<string, McpToolDefinition>();
  /** Who answers the server's questions for each call in flight. */
  readonly #asking = new Set<AskDuringCall>();
  /** One per server, kept across sessions, so a new session reuses a token that is still good. */
  readonly #oauth: McpOAuthProvider | undefined;

  constructor(options: McpServerConnectionOptions) {
    this.config = options.config;
    this.#options = options;
    if (options.config.type === 'http' && options.config.oauth)
      this.#oauth = new McpOAuthProvider(options.config.oauth, options.now);
  }

  get name(): string {
    return this.config.name;
  }

  get state(): McpServerState {
    return this.#state;
  }

  get tools(): readonly McpToolDefinition[] {
    return [...this.#tools.values()];
  }

  /**
   * The text with every OAuth token recently issued for this server replaced: a server that repeats the
   * token it was sent (a debugging tool, an error that quotes the request) does not hand it to the model
   * or a thread. The configured secrets are the redactor's; these exist only at run time.
   */
  hideCredentials(text: string): string {
    let hidden = text;
    for (const token of this.#oauth?.issuedTokens ?? []) {
      if (token.length >= 8) hidden = hidden.replaceAll(token, `[redacted OAuth token for ${this.name}]`);
    }
    return hidden;
  }

  definition(toolName: string): McpToolDefinition | undefined {
    return this.#tools.get(toolName);
  }

  /** A tool's definition before it last changed, as this process saw it; undefined when it has not. */
  previousDefinition(toolName: string): McpToolDefinition | undefined {
    return this.#previous.get(toolName);
  }

  /** Connects and lists the tools; throws `McpServerUnavailableError` naming the server when it cannot. */
  async start(): Promise<void> {
    try {
      await this.#connect();
    } catch (error) {
      // What the server wrote before it went may still be on its way through the pipe.
      await new Promise((resolve) => setImmediate(resolve));
      const said = this.#lastStderr ? ` (it said: ${this.#lastStderr})` : '';
      const why = describeAuthFailure(error, this.config) ?? describeError(error);
      const detail = this.#options.redact(`${why}${said}`);
      this.#state = { type: 'unavailable', error: detail };
      throw new McpServerUnavailableError(this.name, detail, { cause: error });
    }
  }

  /** Calls a tool; the server's questions during the call go to `ask` (none: each is declined). */
  async call(
    toolName: string,
    args: unknown,
    signal: AbortSignal,
    ask: AskDuringCall = async () => ({ action: 'decline' }),
  ): Promise<CallToolResult> {
    this.#asking.add(ask);
    try {
      try {
        return await this.#send(toolName, args, signal);
      } catch (error) {
        if (!isSessionGone(error)) throw this.#callFailed(error);
      }
      // A remote server that restarted no longer knows the session, and answered 404 without processing
      // the request (the protocol's rule): a new session may send it, once.
      try {
        await this.#renewSession();
        return await this.#send(toolName, args, signal);
      } catch (error) {
        throw this.#callFailed(error);
      }
    } finally {
      this.#asking.delete(ask);
    }
  }

  /**
   * A question from the server. The protocol does not say which call it belongs to, so it is put to the
   * requester only when one call is in flight; with several, nobody can tell whose it is, and it is
   * cancelled rather than shown to the wrong person.
   */
  async #elicit(request: ElicitRequest['params']): Promise<ElicitResult> {
    const [only, ...others] = this.#asking;
    if (only && others.length === 0) return only(request);
    this.#options.logger.warn(
      { server: this.name, callsInFlight: this.#asking.size },
      'MCP server asked a question that cannot be tied to one call; cancelled it',
    );
    return { action: 'cancel' };
  }

  async #send(toolName: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    const client = this.#client;
    if (!client || this.#state.type !== 'connected') {
      throw new McpCallFailedError(
        `MCP server "${this.name}" is not connected (${describeState(this.#state)}); the call was not sent`,
      );
    }
    return (await client.callTool(
      { name: toolName, arguments: (args ?? {}) as Record<string, unknown> },
      undefined,
      { signal, timeout: this.config.timeoutMs },
    )) as CallToolResult;
  }

  #callFailed(error: unknown): McpCallFailedError {
    if (error instanceof McpCallFailedError) return error;
    // The call was sent: a server that stopped or went quiet may have done part or all of it.
    const why =
      error instanceof McpError && error.code === ErrorCode.ConnectionClosed
        ? 'the server stopped during the call, so whether it took effect is unknown'
        : error instanceof McpError && error.code === ErrorCode.RequestTimeout
          ? `no answer within ${this.config.timeoutMs} ms, so whether it took effect is unknown`
          : this.#options.redact(describeError(error));
    return new McpCallFailedError(`MCP server "${this.name}" did not finish the call: ${why}`, {
      cause: error,
    });
  }

  /** One new session at a time, however many calls found the old one gone. */
  #renewSession(): Promise<void> {
    this.#renewing ??= (async () => {
      const old = this.#client;
      this.#client = undefined;
      // The old client's close is not a crash: bumping the generation keeps it from restarting anything.
      this.#generation += 1;
      await old?.close().catch(() => undefined);
      await this.#connect();
      this.#options.onToolsChanged?.();
      this.#options.logger.info(
        { server: this.name },
        'MCP server had forgotten the session; started a new one',
      );
    })().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#restartTimer);
    const client = this.#client;
    this.#client = undefined;
    this.#state = { type: 'closed' };
    await client?.close().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const generation = ++this.#generation;
    const client = new Client(
      { name: 'holdfast', version: this.#options.version ?? '1' },
      {
        // Questions (forms, and links to visit) go to the person who asked for the call; a field they leave
        // empty takes the default the server gave it (the form shows it), as the protocol's defaults say.
        // Sampling is not offered: holdfast's model is not the server's to use.
        capabilities: { elicitation: { form: { applyDefaults: true }, url: {} } },
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (error, tools) => {
              if (generation !== this.#generation) return;
              if (error || !tools) {
                this.#options.logger.warn(
                  { server: this.name, err: error },
                  'could not list the MCP server tools again',
                );
                return;
              }
              this.#setTools(tools);
              this.#options.onToolsChanged?.();
              this.#options.logger.info(
                { server: this.name, tools: tools.map((tool) => tool.name) },
                'MCP server changed its tools',
              );
            },
          },
        },
      },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => this.#elicit(request.params));
    const transport = this.#transport();
    // Only a connection that was up is started again; one that never came up is the caller's failure.
    let established = false;
    client.onclose = () => {
      if (!established || generation !== this.#generation || this.#closing) return;
      this.#client = undefined;
      this.#scheduleRestart(1, 'the connection closed');
    };
    try {
      await client.connect(transport, { timeout: this.config.timeoutMs });
      this.#setTools(await listAll(client, this.config.timeoutMs));
    } catch (error) {
      this.#generation += 1;
      await client.close().catch(() => undefined);
      throw error;
    }
    established = true;
    this.#client = client;
    this.#state = { type: 'connected', tools: this.#tools.size };
  }

  #transport(): StdioClientTransport | StreamableHTTPClientTransport {
    return createMcpTransport(this.config, {
      baseEnv: this.#options.baseEnv,
      oauth: this.#oauth,
      onStderrLine: (line) => {
        this.#lastStderr = line.trim().slice(0, 300);
        this.#options.logger.info(
          { server: this.name, stderr: this.#options.redact(line.slice(0, 2_000)) },
          'MCP server said',
        );
      },
    });
  }

  #setTools(tools: readonly McpToolDefinition[]): void {
    for (const tool of tools) {
      const before = this.#tools.get(tool.name);
      if (before && JSON.stringify(before) !== JSON.stringify(tool)) this.#previous.set(tool.name, before);
    }
    this.#tools = new Map(tools.map((tool) => [tool.name, tool]));
    if (this.#state.type === 'connected') this.#state = { type: 'connected', tools: this.#tools.size };
  }

  #scheduleRestart(attempt: number, reason: string): void {
    const base = this.#options.restartDelayMs ?? 1_000;
    const delay = Math.min(base * 2 ** (attempt - 1), this.#options.maxRestartDelayMs ?? 60_000);
    this.#state = { type: 'restarting', attempt, error: reason };
    this.#options.logger.warn(
      { server: this.name, attempt, delayMs: delay, reason: this.#options.redact(reason) },
      'MCP server went away; starting it again',
    );
    this.#restartTimer = setTimeout(() => {
      if (this.#closing) return;
      this.#connect().then(
        () => {
          this.#options.onToolsChanged?.();
          this.#options.logger.info({ server: this.name, tools: this.#tools.size }, 'MCP server is back');
        },
        (error: unknown) => {
          if (!this.#closing) this.#scheduleRestart(attempt + 1, describeError(error));
        },
      );
    }, delay);
    this.#restartTimer.unref();
  }
}

async function listAll(client: Client, timeout: number): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor && tools.length < 10_000);
  return tools;
}

function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code === 404;
}
