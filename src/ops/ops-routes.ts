import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { listenFailure } from '../http/port-unavailable.js';
import { serveBehindProxies } from '../http/serve-behind-proxies.js';
import type { ReadinessReport } from './readiness.js';

export interface OpsEndpoints {
  readonly registry: Registry;
  /** When set, `/metrics` answers only `Authorization: Bearer <token>`. */
  readonly metricsToken?: string;
  readonly readiness: () => Promise<ReadinessReport>;
  /** A fault only a restart clears (see `Store.fault`): `/health` fails while there is one. */
  readonly fault?: () => Error | undefined;
  /** What `/health` adds about parts that may be missing without failing it (optional MCP servers). */
  readonly details?: () => Record<string, unknown>;
}

export type OpsRoute = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * `/health` (the process is alive and serving; 503 after a fault only a restart clears), `/ready` (the
 * database and Slack answer; 503 otherwise)
 * and `/metrics` (Prometheus text), as handlers for whichever server carries them.
 */
export function opsRoutes(
  endpoints: OpsEndpoints,
): Readonly<Record<'/health' | '/ready' | '/metrics', OpsRoute>> {
  const reply = (response: ServerResponse, status: number, type: string, body: string) => {
    response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
    response.end(body);
  };
  const answer = (
    response: ServerResponse,
    work: () => Promise<{ status: number; type: string; body: string }>,
  ) => {
    work().then(
      ({ status, type, body }) => reply(response, status, type, body),
      () => reply(response, 500, 'text/plain', 'error\n'),
    );
  };
  return {
    '/health': (_request, response) => {
      // Liveness: a supervisor restarts a process that fails it, the one cure for such a fault.
      const fault = endpoints.fault?.();
      if (fault)
        reply(response, 503, 'application/json', JSON.stringify({ ok: false, error: fault.message }));
      else reply(response, 200, 'application/json', JSON.stringify({ ok: true, ...endpoints.details?.() }));
    },
    '/ready': (_request, response) =>
      answer(response, async () => {
        const report = await endpoints.readiness();
        return { status: report.ready ? 200 : 503, type: 'application/json', body: JSON.stringify(report) };
      }),
    '/metrics': (request, response) => {
      // In HTTP mode this is the port Slack reaches, so it is open to the internet: what tools run and
      // how often is the operator's business.
      if (endpoints.metricsToken !== undefined && !bears(request, endpoints.metricsToken)) {
        response.writeHead(401, {
          'content-type': 'text/plain',
          'www-authenticate': 'Bearer realm="metrics"',
        });
        response.end('unauthorized\n');
        return;
      }
      answer(response, async () => ({
        status: 200,
        type: endpoints.registry.contentType,
        body: await endpoints.registry.metrics(),
      }));
    },
  };
}

/** Whether the request bears the token, compared in constant time (digests, so lengths match). */
function bears(request: IncomingMessage, token: string): boolean {
  const header = request.headers.authorization ?? '';
  const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/**
 * The small listener for the modes that have no HTTP server of their own (Socket Mode, local mode):
 * GET on the three paths, 404 for anything else.
 */
export async function startOpsServer(
  port: number,
  endpoints: OpsEndpoints,
): Promise<{ url: string; close(): Promise<void> }> {
  const routes: Readonly<Record<string, OpsRoute>> = opsRoutes(endpoints);
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const route = request.method === 'GET' ? routes[path] : undefined;
    if (route) return route(request, response);
    response.writeHead(request.method === 'GET' ? 404 : 405, { 'content-type': 'text/plain' });
    response.end();
  });
  serveBehindProxies(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    throw listenFailure(error, { port, purpose: 'health and metrics', variable: 'HOLDFAST_HEALTH_PORT' });
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
