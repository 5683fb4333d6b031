import type { McpServerConfig } from '../config-mcp-servers.js';
import { describeState, type McpServerState } from '../mcp/index.js';
import { ok, problem, type StartupCheck, warning } from './startup-check.js';

const fix =
  'Fix its entry in HOLDFAST_MCP_CONFIG (command, arguments, URL, headers, oauth), or mark it "optional": true to start without its tools.';

/** One check per configured MCP server, from where each stood after doctor tried to connect it. */
export function mcpServerChecks(
  servers: readonly McpServerConfig[],
  states: Readonly<Record<string, McpServerState>>,
): StartupCheck[] {
  return servers.map((server) => ({
    name: `mcp ${server.name}`,
    async run() {
      const state = states[server.name] ?? { type: 'unavailable', error: 'not tried' };
      const where = server.type === 'http' ? server.url : server.command;
      if (state.type === 'connected') return ok(`${where}: ${describeState(state)}`);
      const said = `${where}: ${describeState(state)}`;
      return server.optional
        ? warning(`${said}; it is optional, so holdfast starts without its tools`, fix)
        : problem(said, fix);
    },
  }));
}
