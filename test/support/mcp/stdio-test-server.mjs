// A real MCP server over stdio, built with the SDK: `crash` ends the process in the middle of the call,
// `hello` answers, `ask_back` asks the client to sample and to elicit, `deploy` and `sign_in` ask the
// person (a form, a link). Each start writes a line to stderr
// with the variable its entry passed on.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
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
// Asks the person where to deploy before it does anything, and says what it did. Each call, with the
// answer it got, is appended to the file CALLS_LOG names, so a test sees how often the server was called.
const recordCall = (entry) => {
  if (process.env.CALLS_LOG) appendFileSync(process.env.CALLS_LOG, `${JSON.stringify(entry)}\n`);
};
const text = (said) => ({ content: [{ type: 'text', text: said }] });
server.registerTool(
  'deploy',
  { description: 'Deploys a service, asking where first.', inputSchema: { service: z.string() } },
  async ({ service }) => {
    const answer = await server.server.elicitInput({
      message: `Where should ${service} go?`,
      requestedSchema: {
        type: 'object',
        properties: {
          environment: { type: 'string', title: 'Environment', enum: ['staging', 'production'] },
          confirm: { type: 'boolean', title: 'Really deploy' },
          note: { type: 'string', title: 'Note', maxLength: 40 },
        },
        required: ['environment', 'confirm'],
      },
    });
    recordCall({ tool: 'deploy', service, answer });
    if (answer.action !== 'accept') return text(`not deployed: ${answer.action}`);
    const note = answer.content?.note ? ` (${answer.content.note})` : '';
    return text(`deployed ${service} to ${answer.content?.environment}${note}`);
  },
);
// Needs the person to sign in on a page of its own (URL-mode elicitation), with a new link each time.
server.registerTool('sign_in', { description: 'Signs in to the ticket system.' }, async () => {
  const state = randomUUID();
  const answer = await server.server.elicitInput({
    mode: 'url',
    message: 'Sign in to the ticket system',
    url: `https://tickets.example.test/sign-in?state=${state}`,
    elicitationId: state,
  });
  recordCall({ tool: 'sign_in', answer });
  return text(`sign in: ${answer.action}`);
});
process.stderr.write(`crashing-test started with token ${process.env.CRASHY_TOKEN ?? 'none'}\n`);
await server.connect(new StdioServerTransport());
