// A real MCP server over stdio whose `crash` tool ends the process in the middle of the call, and whose
// `hello` tool answers; each start writes a line to stderr, with the variable its entry passed on.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'crashing-test', version: '1.0.0' });
server.registerTool(
  'crash',
  { description: 'Ends the server mid-call.', inputSchema: { why: z.string() } },
  async () => {
    setTimeout(() => process.exit(3), 20);
    return new Promise(() => undefined);
  },
);
server.registerTool(
  'hello',
  { description: 'Says hello.', inputSchema: { name: z.string() } },
  async ({ name }) => ({
    content: [{ type: 'text', text: `hello ${name}` }],
  }),
);
process.stderr.write(`crashing-test started with token ${process.env.CRASHY_TOKEN ?? 'none'}\n`);
await server.connect(new StdioServerTransport());
