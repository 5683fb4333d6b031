import type { Server } from 'node:http';

/**
 * Longer than the idle timeout of the load balancers holdfast usually sits behind (AWS's ALB: 60 s).
 * Node closes an idle connection after 5 s; a proxy that sends the next request down a connection Node
 * is just closing answers its client (Slack, a health probe) with a 502.
 */
const idleConnectionMs = 65_000;

/** Keeps idle connections open past the proxy's own timeout, so the proxy is always the one to close. */
export function serveBehindProxies(server: Server): void {
  server.keepAliveTimeout = idleConnectionMs;
  // The headers timeout covers the wait for the next request on a kept connection too: shorter than the
  // keep-alive, it would close the connection first (Node's default is 60 s).
  server.headersTimeout = idleConnectionMs + 1_000;
}
