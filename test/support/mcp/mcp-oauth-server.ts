import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  InvalidClientError,
  InvalidGrantError,
  InvalidTokenError,
  UnsupportedGrantTypeError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthMetadataRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import express, { type Request } from 'express';
import { z } from 'zod';

export interface McpOAuthServerOptions {
  readonly clientId: string;
  /** The secret the client authenticates with; a client without one is public (refresh tokens only). */
  readonly clientSecret?: string;
  /** A refresh token issued beforehand; each use rotates it. */
  readonly refreshToken?: string;
  readonly expiresInSeconds?: number;
}

/** One request to the token endpoint, as the authorization server understood it. */
export interface TokenRequest {
  readonly grantType: string;
  readonly clientId: string | undefined;
  /** How the client authenticated: `basic` (the Authorization header), `post` (the body) or `none`. */
  readonly clientAuth: 'basic' | 'post' | 'none';
  readonly refreshToken?: string;
  readonly resource?: string;
  readonly status: number;
}

/**
 * An OAuth authorization server and an MCP server it protects, each on a port of its own, as a team
 * would run them: the MCP server answers 401 with a pointer to its protected-resource metadata, which
 * names the authorization server. The authorization server grants client_credentials and refresh_token
 * (the SDK's server side has neither, so its token endpoint is written here, with the SDK's errors).
 */
export interface McpOAuthServer {
  /** The MCP endpoint. */
  readonly url: string;
  /** The authorization server's issuer URL. */
  readonly issuer: string;
  readonly tokenRequests: TokenRequest[];
  /** Access tokens issued, in order. */
  readonly issued: string[];
  /** The bearer token (or none) of every request the MCP endpoint received, in order. */
  readonly bearers: Array<string | undefined>;
  /** Arguments of every `restart` call the MCP server ran (it also offers `whoami`, which echoes the token). */
  readonly calls: Array<Record<string, unknown>>;
  /** Every access token issued so far is refused from now on, as when tokens are revoked or lapse early. */
  endTokens(): void;
  close(): Promise<void>;
}

export async function startMcpOAuthServer(options: McpOAuthServerOptions): Promise<McpOAuthServer> {
  const authHttp = await listen();
  const mcpHttp = await listen();
  const issuer = `http://127.0.0.1:${(authHttp.address() as AddressInfo).port}`;
  const url = `http://127.0.0.1:${(mcpHttp.address() as AddressInfo).port}/mcp`;
  const tokenRequests: TokenRequest[] = [];
  const issued: string[] = [];
  const bearers: Array<string | undefined> = [];
  const calls: Array<Record<string, unknown>> = [];
  const live = new Map<string, number>();
  let refreshToken = options.refreshToken;
  const expiresIn = options.expiresInSeconds ?? 3600;

  const metadata: OAuthMetadata = {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    response_types_supported: ['code'],
    grant_types_supported: ['client_credentials', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
  };

  const auth = express();
  auth.get('/.well-known/oauth-authorization-server', (_request, response) => {
    response.json(metadata);
  });
  auth.post('/token', express.urlencoded({ extended: false }), (request, response) => {
    const body = request.body as Record<string, string | undefined>;
    const client = clientOf(request);
    const record = (status: number) =>
      tokenRequests.push({
        grantType: String(body.grant_type),
        clientId: client.id,
        clientAuth: client.auth,
        ...(body.refresh_token ? { refreshToken: body.refresh_token } : {}),
        ...(body.resource ? { resource: body.resource } : {}),
        status,
      });
    const knownClient =
      client.id === options.clientId &&
      (options.clientSecret === undefined ? client.auth === 'none' : client.secret === options.clientSecret);
    if (!knownClient) {
      record(401);
      response.status(401).json(new InvalidClientError('Client authentication failed').toResponseObject());
      return;
    }
    if (body.grant_type === 'refresh_token') {
      if (!refreshToken || body.refresh_token !== refreshToken) {
        record(400);
        response.status(400).json(new InvalidGrantError('Unknown refresh token').toResponseObject());
        return;
      }
      refreshToken = `refresh-${randomUUID()}`;
    } else if (body.grant_type !== 'client_credentials' || options.clientSecret === undefined) {
      record(400);
      response.status(400).json(new UnsupportedGrantTypeError('Not granted here').toResponseObject());
      return;
    }
    record(200);
    const token = `access-${randomUUID()}`;
    issued.push(token);
    live.set(token, Math.floor(Date.now() / 1000) + expiresIn);
    response.set('Cache-Control', 'no-store').json({
      access_token: token,
      token_type: 'Bearer',
      expires_in: expiresIn,
      ...(body.grant_type === 'refresh_token' ? { refresh_token: refreshToken } : {}),
    });
  });
  authHttp.on('request', auth);

  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const newSession = async () => {
    const server = new McpServer({ name: 'ops-oauth-test', version: '1.0.0' });
    server.registerTool(
      'restart',
      { description: 'Restart a service.', inputSchema: { service: z.string() } },
      async ({ service }) => {
        calls.push({ service });
        return { content: [{ type: 'text', text: `restarted ${service}` }] };
      },
    );
    // A careless debugging tool: it repeats the credentials it was sent.
    server.registerTool('whoami', { description: 'Say how the caller signed in.' }, async (extra) => ({
      content: [{ type: 'text', text: `signed in with Bearer ${extra.authInfo?.token ?? 'nothing'}` }],
    }));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    await server.connect(transport);
    return transport;
  };
  const mcp = express();
  mcp.use(mcpAuthMetadataRouter({ oauthMetadata: metadata, resourceServerUrl: new URL(url) }));
  mcp.use('/mcp', (request, _response, next) => {
    const header = request.headers.authorization;
    bearers.push(header?.startsWith('Bearer ') ? header.slice(7) : undefined);
    next();
  });
  mcp.use(
    '/mcp',
    requireBearerAuth({
      resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
      verifier: {
        async verifyAccessToken(token) {
          const expiresAt = live.get(token);
          if (expiresAt === undefined) throw new InvalidTokenError('Unknown or ended token');
          return { token, clientId: options.clientId, scopes: [], expiresAt };
        },
      },
    }),
  );
  mcp.all('/mcp', (request, response) => {
    const id = request.headers['mcp-session-id'];
    const existing = typeof id === 'string' ? sessions.get(id) : undefined;
    const transport = existing ? Promise.resolve(existing) : newSession();
    transport
      .then((ready) => ready.handleRequest(request, response))
      .catch(() => {
        if (!response.headersSent) response.status(500).end();
      });
  });
  mcpHttp.on('request', mcp);

  return {
    url,
    issuer,
    tokenRequests,
    issued,
    bearers,
    calls,
    endTokens() {
      live.clear();
    },
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      await Promise.all([stop(authHttp), stop(mcpHttp)]);
    },
  };
}

function clientOf(request: Request): {
  id: string | undefined;
  secret: string | undefined;
  auth: TokenRequest['clientAuth'];
} {
  const header = request.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const [id, secret] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    return { id: decodeURIComponent(id ?? ''), secret: decodeURIComponent(secret ?? ''), auth: 'basic' };
  }
  const body = request.body as Record<string, string | undefined>;
  if (body.client_secret) return { id: body.client_id, secret: body.client_secret, auth: 'post' };
  return { id: body.client_id, secret: undefined, auth: 'none' };
}

async function listen(): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
