import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A real MCP server over Streamable HTTP, in this process, with one tool the test can change. */
export interface McpHttpServer {
  readonly url: string;
  /** Arguments of every call the server ran, in order. */
  readonly calls: Array<Record<string, unknown>>;
  /** Headers of every request the server received. */
  readonly headers: Array<IncomingMessage['headers']>;
  /** Changes the `scale` tool's description for every session, which tells each client its tools changed. */
  describeScale(description: string): void;
  /** Adds a `status` tool for every session, now and later, which tells each client its tools changed. */
  addStatusTool(): void;
  /** Forgets every session, as the server would after a restart: their requests get 404. */
  forgetSessions(): void;
  /** From now on, calls are recorded and never answered, as a call in flight when a process dies. */
  holdCalls(): void;
  close(): Promise<void>;
}

/**
 * Offers `scale` (`{service, replicas}`): it answers `scaled <service> to <n>`. One SDK server and
 * transport per session, as the SDK's own examples do, so a client that reconnects gets a session of its own.
 */
export async function startMcpHttpServer(): Promise<McpHttpServer> {
  const calls: Array<Record<string, unknown>> = [];
  const headers: Array<IncomingMessage['headers']> = [];
  const sessions = new Map<
    string,
    { transport: StreamableHTTPServerTransport; tool: RegisteredTool; server: McpServer }
  >();
  let withStatus = false;
  const registerStatus = (server: McpServer) =>
    server.registerTool(
      'status',
      { description: 'Reports whether a service is up.', inputSchema: { service: z.string() } },
      async ({ service }) => ({
        content: [{ type: 'text', text: `${service} is up` }],
      }),
    );
  let description = 'Scale a service to a number of replicas.';
  let holding = false;

  const newSession = async () => {
    const server = new McpServer({ name: 'ops-test', version: '1.0.0' });
    const tool = server.registerTool(
      'scale',
      {
        description,
        inputSchema: { service: z.string(), replicas: z.number().int().min(0).max(50) },
        annotations: { destructiveHint: true },
      },
      async ({ service, replicas }) => {
        calls.push({ service, replicas });
        if (holding) await new Promise(() => undefined);
        return { content: [{ type: 'text', text: `scaled ${service} to ${replicas}` }] };
      },
    );
    if (withStatus) registerStatus(server);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, tool, server });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    headers.push(request.headers);
    const id = request.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id)?.transport : undefined;
    if (typeof id === 'string' && !existing) {
      // The protocol's answer to a session the server does not know (it restarted, or ended it).
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
      );
      return;
    }
    const transport = existing ?? (await newSession());
    await transport.handleRequest(request, response);
  };
  const http = createServer((request, response) => {
    handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    headers,
    describeScale(next) {
      description = next;
      for (const { tool } of sessions.values()) tool.update({ description: next });
    },
    addStatusTool() {
      withStatus = true;
      for (const { server } of sessions.values()) registerStatus(server);
    },
    forgetSessions() {
      sessions.clear();
    },
    holdCalls() {
      holding = true;
    },
    async close() {
      for (const { transport } of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
