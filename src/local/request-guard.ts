import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a check decided; a refusal carries a stable `error` code and a sentence for the person. */
export type GuardVerdict =
  | { readonly type: 'pass' }
  | { readonly type: 'refuse'; readonly status: 403 | 415; readonly error: string; readonly message: string };

const pass: GuardVerdict = { type: 'pass' };
const refuse = (status: 403 | 415, error: string, message: string): GuardVerdict => ({
  type: 'refuse',
  status,
  error,
  message,
});

export interface RequestGuard {
  /** `Host` must name the loopback address and port served: anything else is DNS rebinding. */
  host(request: IncomingMessage): GuardVerdict;
  /**
   * The page and its own endpoints: the browser tab the person signed in (same origin, with the secret
   * cookie) or a script holding the secret in `Authorization: Bearer`.
   */
  browser(request: IncomingMessage): GuardVerdict;
  /** Endpoints holdfast's server calls (the Web API, response URLs): never a browser. */
  serverOnly(request: IncomingMessage): GuardVerdict;
  /** The page's state-changing endpoints take JSON only, which no cross-site form or `text/plain` post can send. */
  json(request: IncomingMessage): GuardVerdict;
  /** Whether `token` (from the printed URL) is the secret. */
  isSecret(token: string): boolean;
  /** The cookie that signs this browser in, for the port served. */
  readonly cookie: string;
  /** The path segment that makes a response URL valid; derived, so the secret never leaves this process. */
  readonly responseKey: string;
  isResponseKey(key: string): boolean;
}

export interface RequestGuardOptions {
  readonly port: number;
  readonly secret: string;
}

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Compares digests, so neither the length nor a prefix of the secret leaks through timing. */
const equalInConstantTime = (candidate: string, secret: string) =>
  timingSafeEqual(
    createHash('sha256').update(candidate).digest(),
    createHash('sha256').update(secret).digest(),
  );

/**
 * The local workspace's trust checks, the way notebook servers do it: it can run shell commands on the
 * developer's machine, so a page in another tab (cross-site posts, DNS rebinding, another port on
 * localhost) must not be able to act through it.
 */
export function createRequestGuard(options: RequestGuardOptions): RequestGuard {
  const { port, secret } = options;
  const hosts = new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  // Cookies ignore ports: one name per port keeps two workspaces on one machine from clobbering each other.
  const cookieName = `holdfast_local_${port}`;
  const responseKey = createHmac('sha256', secret).update('holdfast local response_url').digest('base64url');

  const cookieSecret = (request: IncomingMessage): string | undefined => {
    for (const part of (header(request, 'cookie') ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === cookieName) return value.join('=');
    }
    return undefined;
  };
  const bearer = (request: IncomingMessage): string | undefined => {
    const authorization = header(request, 'authorization');
    return authorization?.startsWith('Bearer ') ? authorization.slice('Bearer '.length) : undefined;
  };

  return {
    host(request) {
      const host = header(request, 'host')?.toLowerCase();
      if (host && hosts.has(host)) return pass;
      return refuse(
        403,
        'foreign_host',
        `The holdfast local workspace only answers requests addressed to localhost:${port}, ` +
          `127.0.0.1:${port} or [::1]:${port}; a web page reaching it under another name is refused. ` +
          `Open http://localhost:${port}/ with the token holdfast printed at start.`,
      );
    },

    browser(request) {
      const stateChanging = request.method !== 'GET' && request.method !== 'HEAD';
      const origin = header(request, 'origin');
      const site = header(request, 'sec-fetch-site');
      const ownOrigin = `http://${header(request, 'host')?.toLowerCase()}`;
      // `none` is the person opening a URL from the terminal or the address bar: fine for reading only.
      const siteOk = site === undefined || site === 'same-origin' || (site === 'none' && !stateChanging);
      if ((origin !== undefined && origin.toLowerCase() !== ownOrigin) || !siteOk)
        return refuse(
          403,
          'cross_origin',
          'Only the holdfast local workspace page itself may use it; requests from other sites or ' +
            'other ports are refused.',
        );
      const fromCookie = cookieSecret(request);
      const fromHeader = bearer(request);
      const token = fromHeader ?? fromCookie;
      if (token === undefined || !equalInConstantTime(token, secret))
        return refuse(
          403,
          'not_signed_in',
          'This browser is not signed in to the holdfast local workspace: open the URL holdfast printed ' +
            'in its terminal (it ends in ?token=…).',
        );
      // A browser always says where a state-changing request comes from; one that does not is refused
      // rather than trusted. Scripts holding the secret in a header are not browsers.
      if (stateChanging && fromHeader === undefined && origin === undefined && site === undefined)
        return refuse(403, 'cross_origin', 'A change without an Origin or Sec-Fetch-Site header is refused.');
      return pass;
    },

    serverOnly(request) {
      if (header(request, 'origin') !== undefined || header(request, 'sec-fetch-site') !== undefined)
        return refuse(
          403,
          'browser_refused',
          "This endpoint is for holdfast's own server; a browser may not call it.",
        );
      return pass;
    },

    json(request) {
      const mediaType = header(request, 'content-type')?.split(';')[0]?.trim().toLowerCase();
      if (mediaType === 'application/json') return pass;
      return refuse(415, 'json_only', 'Send application/json.');
    },

    isSecret: (token) => equalInConstantTime(token, secret),

    cookie: `${cookieName}=${secret}; Path=/; HttpOnly; SameSite=Strict`,

    responseKey,
    isResponseKey: (key) => equalInConstantTime(key, responseKey),
  };
}
