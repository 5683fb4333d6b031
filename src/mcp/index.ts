export { connectMcpServers, type McpToolSource, type McpToolSourceOptions } from './connect-mcp-servers.js';
export {
  McpCallFailedError,
  McpServersUnavailableError,
  McpServerUnavailableError,
} from './mcp-errors.js';
export { mcpHealth } from './mcp-health.js';
export { describeState, type McpServerState } from './mcp-server-connection.js';
export { mcpToolName } from './mcp-tool-name.js';
