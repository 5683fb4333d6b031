/**
 * The client under test for the MCP conformance suite: holdfast's own connection to a remote server
 * (`McpServerConnection`, the code start-up runs), pointed at the URL the suite appends to the command.
 * The suite names the scenario in MCP_CONFORMANCE_SCENARIO and, where a scenario hands the client
 * credentials, puts them in MCP_CONFORMANCE_CONTEXT; they become the entry's `oauth`, as an operator
 * would write it. It connects (initialize, then the tools list), calls each tool the server offers, and
 * closes. Exit code 0 means holdfast finished; whether it behaved is what the suite's checks say.
 */
import pino from 'pino';
import { z } from 'zod';
import type { McpServerConfig } from '../../src/config-mcp-servers.js';
import { McpServerConnection } from '../../src/mcp/mcp-server-connection.js';

const contextSchema = z.looseObject({
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
});

async function main(): Promise<void> {
  const url = process.argv.at(-1);
  if (!url?.startsWith('http')) throw new Error('usage: client.ts <server-url>');
  const context = contextSchema.parse(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}'));
  const config: McpServerConfig = {
    type: 'http',
    name: 'conformance',
    url,
    headers: {},
    optional: false,
    trustAnnotations: false,
    timeoutMs: 10_000,
    ...(context.client_id && context.client_secret
      ? { oauth: { clientId: context.client_id, clientSecret: context.client_secret } }
      : {}),
  };
  // The log goes to stderr, which the suite keeps beside its checks.
  const logger = pino({ level: 'debug' }, pino.destination(2));
  const connection = new McpServerConnection({
    config,
    logger,
    redact: (text) => text,
    baseEnv: {},
    version: '0.1.0',
  });
  try {
    await connection.start();
    for (const tool of connection.tools) {
      // A question the server asks is answered as a person would who sends its form as shown, leaving
      // every field at what it offers (the connection fills in the server's defaults).
      const result = await connection.call(
        tool.name,
        argumentsFor(tool.inputSchema),
        AbortSignal.timeout(10_000),
        async (request) =>
          request.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: {} },
      );
      logger.info({ tool: tool.name, result }, 'called');
    }
  } finally {
    await connection.close();
  }
}

/** Arguments a schema accepts: a plain value of each required property's type. */
function argumentsFor(schema: {
  properties?: Record<string, object>;
  required?: string[];
}): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const type = (schema.properties?.[name] as { type?: string } | undefined)?.type;
    values[name] =
      type === 'number' || type === 'integer'
        ? 1
        : type === 'boolean'
          ? true
          : type === 'array'
            ? []
            : type === 'object'
              ? {}
              : 'conformance';
  }
  return values;
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
