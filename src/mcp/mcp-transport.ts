import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpServerConfig } from '../config-mcp-servers.js';

/**
 * The SDK's transport for one configured server: Streamable HTTP with its headers (and OAuth, when the
 * entry has it), or a local process over stdio whose stderr is handed over a line at a time.
 */
export function createMcpTransport(
  config: McpServerConfig,
  options: {
    /** The environment basics a local server inherits (PATH, HOME…), secrets already left out. */
    readonly baseEnv: Readonly<Record<string, string>>;
    readonly oauth: OAuthClientProvider | undefined;
    readonly onStderrLine: (line: string) => void;
  },
): StdioClientTransport | StreamableHTTPClientTransport {
  if (config.type === 'http') {
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: { ...config.headers } },
      ...(options.oauth ? { authProvider: options.oauth } : {}),
    });
  }
  const transport = new StdioClientTransport({
    command: config.command,
    args: [...config.args],
    // Only what the entry names, over the basics: never holdfast's own environment.
    env: { ...options.baseEnv, ...config.env },
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: 'pipe',
  });
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim() !== '') options.onStderrLine(line);
  });
  return transport;
}
