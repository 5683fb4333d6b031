import { HoldfastError } from '../errors.js';

/** A configured MCP server that could not start or answer: start-up stops with this one line. */
export class McpServerUnavailableError extends HoldfastError {
  readonly code = 'mcp_server_unavailable';
  constructor(
    readonly server: string,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `MCP server "${server}" could not start: ${detail}. Fix its entry in HOLDFAST_MCP_CONFIG (command, ` +
        'arguments, URL, headers, oauth), or mark it "optional": true to start without its tools.',
      options,
    );
  }
}

/** Several servers could not start: each one's line, together. */
export class McpServersUnavailableError extends HoldfastError {
  readonly code = 'mcp_server_unavailable';
  constructor(readonly failures: readonly Error[]) {
    super(failures.map((failure) => failure.message).join('\n'), { cause: failures[0] });
  }
}

/** A call the server could not take or finish: its connection closed, or it stopped answering. */
export class McpCallFailedError extends HoldfastError {
  readonly code = 'mcp_call_failed';
}
