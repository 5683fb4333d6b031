// A real MCP server over stdio, built with the SDK: `crash` ends the process in the middle of the call,
// `hello` answers, `ask_back` asks the client to sample and to elicit. Each start writes a line to stderr
// with the variable its entry passed on.
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
// Asks the client to sample its model and to ask its user; answers with what became of each request.
server.registerTool(
  'ask_back',
  { description: 'Asks the client for a completion and for input.' },
  async () => {
    const outcome = (request) =>
      request.then(
        (answer) => `answered: ${JSON.stringify(answer)}`,
        (error) => `refused: ${error.message}`,
      );
    const sampling = await outcome(
      server.server.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }],
        maxTokens: 10,
      }),
    );
    const elicitation = await outcome(
      server.server.elicitInput({
        message: 'Which cluster?',
        requestedSchema: { type: 'object', properties: { cluster: { type: 'string' } } },
      }),
    );
    return { content: [{ type: 'text', text: `sampling ${sampling}\nelicitation ${elicitation}` }] };
  },
);
process.stderr.write(`crashing-test started with token ${process.env.CRASHY_TOKEN ?? 'none'}\n`);
await server.connect(new StdioServerTransport());
