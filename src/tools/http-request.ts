import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { ToolContext, ToolPermission } from '../agent/tool.js';
import { failedRun } from '../agent/tool-outcome.js';
import { ToolRefusedError } from '../agent/tool-refused-error.js';
import { describeError } from '../errors.js';
import { describeNetworkFailure } from '../network-failure.js';
import { defineTool } from './define-tool.js';
import {
  describeInternal,
  inspectDestination,
  type ResolvedAddress,
  type ResolveHost,
  resolveWithSystem,
} from './http-destination.js';
import { readCappedBody, sendPinnedRequest } from './send-pinned-request.js';

export interface HttpRequestOptions {
  /** `example.com`, `*.example.com`, optionally with `:port`. */
  readonly allowHosts: readonly string[];
  /**
   * Exact `host[:port]` entries that may be reached at loopback, private and other internal addresses
   * (HOLDFAST_HTTP_INTERNAL_HOSTS). Being internal does not make a request run unasked: that is still
   * the allow-list's job.
   */
  readonly internalHosts?: readonly string[];
  readonly resolve?: ResolveHost;
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
  readonly maxRedirects?: number;
}

const safeMethods = new Set(['GET', 'HEAD']);
/** Never sent to an origin other than the one the request was made to. */
const credentialHeaders = new Set(['authorization', 'cookie', 'proxy-authorization']);
/** Dropped with the body when a redirect turns a request into a GET. */
const bodyHeaders = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
  'transfer-encoding',
]);

export function hostAllowed(allowHosts: readonly string[], url: URL): boolean {
  const host = url.hostname.toLowerCase();
  const port = url.port;
  return allowHosts.some((entry) => {
    const [pattern = '', wantedPort] = entry.toLowerCase().split(':');
    if (wantedPort !== undefined && wantedPort !== port) return false;
    if (wantedPort === undefined && port !== '') return false;
    return pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) : host === pattern;
  });
}

/**
 * What the first look at a call's destination found, kept in `ctx.kv` so that it is snapshotted with the
 * approval: a resume, in this process or another, connects to the internal address the card showed and
 * never to one a later DNS answer brings.
 */
const firstLookSchema = z.object({
  hostname: z.string(),
  internal: z
    .object({ address: z.string(), family: z.union([z.literal(4), z.literal(6)]), range: z.string() })
    .nullable(),
});
type FirstLook = z.output<typeof firstLookSchema>;
const firstLookKey = (ctx: ToolContext) => `http_request.destination.${ctx.toolCallId}`;

/**
 * HTTP for the agent. A GET or HEAD to an allow-listed host that resolves to public addresses runs
 * without asking; anything else asks, and the card says why. Every hop connects to the address that was
 * checked (no second DNS answer), an internal address is reached only for HOLDFAST_HTTP_INTERNAL_HOSTS or
 * the address an approval showed, redirects are followed by hand and re-checked (host and address), and
 * credentials never follow a redirect to another origin.
 */
export function createHttpRequestTool(options: HttpRequestOptions) {
  const resolve = options.resolve ?? resolveWithSystem;
  const internalHosts = (options.internalHosts ?? []).filter((entry) => !entry.startsWith('*.'));
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxResponseBytes ?? 32_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const isInternalHost = (url: URL) => hostAllowed(internalHosts, url);

  /** Where a hop may connect, or why it may not. */
  const target = async (
    url: URL,
    approved: FirstLook | undefined,
  ): Promise<
    | { type: 'connect'; address: ResolvedAddress }
    | { type: 'refused'; message: string }
    | { type: 'failed'; message: string }
  > => {
    const hostname = url.hostname.replace(/^\[|\]$/g, '');
    if (approved?.internal && approved.hostname === hostname) {
      return { type: 'connect', address: approved.internal };
    }
    const destination = await inspectDestination(url, resolve);
    if (destination.type === 'unresolved') return { type: 'failed', message: destination.message };
    if (destination.internal && !isInternalHost(url)) {
      const uncovered = approved?.hostname === hostname ? ', which the approval did not cover' : '';
      return {
        type: 'refused',
        message: `${describeInternal(hostname, destination.internal)}${uncovered}; holdfast reaches internal addresses only for hosts in HOLDFAST_HTTP_INTERNAL_HOSTS or at the address an approval showed`,
      };
    }
    const [first] = destination.addresses;
    return first
      ? { type: 'connect', address: first }
      : { type: 'failed', message: `no address for ${hostname}` };
  };

  return defineTool({
    name: 'http_request',
    description:
      'Make an HTTP request. GET and HEAD to allow-listed hosts run at once; other requests, and any to internal addresses, need approval.',
    parameters: z.object({
      method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
      url: z.url({ protocol: /^https?$/, error: 'an http or https URL' }),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.string().max(100_000).optional(),
    }),
    permissionTypes: ['http'],
    permission: async (args, ctx): Promise<ToolPermission> => {
      const url = new URL(args.url);
      const ask = (reason: string): ToolPermission => ({
        type: 'ask',
        permissionType: 'http',
        summary: `${args.method} ${args.url}`,
        reason: `${reason}: needs approval`,
      });
      if (!isInternalHost(url)) {
        const destination = await inspectDestination(url, resolve);
        const internal = destination.type === 'resolved' ? destination.internal : undefined;
        if (firstLookSchema.safeParse(ctx.kv.get(firstLookKey(ctx))).success === false) {
          const look: FirstLook = { hostname: destination.hostname, internal: internal ?? null };
          ctx.kv.set(firstLookKey(ctx), look);
        }
        if (internal) return ask(describeInternal(destination.hostname, internal));
      }
      if (!safeMethods.has(args.method)) return ask(`${args.method} can change things on ${url.host}`);
      if (!hostAllowed(options.allowHosts, url))
        return ask(`${url.host} is not on HOLDFAST_HTTP_ALLOW_HOSTS`);
      return { type: 'allow', reason: `${args.method} to allow-listed host ${url.host}` };
    },
    async execute(args, ctx) {
      const recorded = firstLookSchema.safeParse(ctx.kv.get(firstLookKey(ctx)));
      ctx.kv.delete(firstLookKey(ctx));
      const approved = recorded.success ? recorded.data : undefined;
      let url = new URL(args.url);
      let method: string = args.method;
      let body = args.body;
      let headers: Record<string, string> = { ...args.headers };
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = AbortSignal.any([ctx.signal, timeout]);
      // The connection goes to a pinned address, so the socket's own error names an IP: say which host,
      // and why in words, for the model to relay to the person who asked.
      const failed = (error: unknown, stage: 'connect' | 'read') => {
        if (timeout.aborted) {
          const why = `timed out after ${timeoutMs} ms`;
          return failedRun(`Request to ${url.href} failed: ${why}`, { error: why });
        }
        const cause = describeNetworkFailure(error) ?? describeError(error);
        const why =
          stage === 'connect'
            ? `could not reach ${url.host}: ${cause}`
            : `the response from ${url.host} broke off: ${cause}`;
        return failedRun(`Request to ${url.href} failed: ${why}`, { error: why });
      };
      for (let hop = 0; ; hop++) {
        const where = await target(url, approved);
        if (where.type === 'failed')
          return failedRun(`Request to ${url.href} failed: ${where.message}`, { error: where.message });
        if (where.type === 'refused') {
          throw new ToolRefusedError(
            hop === 0
              ? `Refused: ${where.message}.`
              : `Refused to follow a redirect to ${url.href}: ${where.message}.`,
          );
        }
        let response: IncomingMessage;
        try {
          response = await sendPinnedRequest({ url, method, headers, body, address: where.address, signal });
        } catch (error) {
          return failed(error, 'connect');
        }
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (status >= 300 && status < 400 && location) {
          response.destroy();
          if (hop >= maxRedirects) {
            const why = `stopped after ${maxRedirects} redirects`;
            return failedRun(`Stopped after ${maxRedirects} redirects (last: ${location}).`, { error: why });
          }
          const next = new URL(location, url);
          if (next.protocol !== 'http:' && next.protocol !== 'https:') {
            throw new ToolRefusedError(
              `Refused to follow a redirect to ${next.href}: only http and https are allowed.`,
            );
          }
          // The approval (or the allow-list) covered the first host only: an unlisted hop is not followed.
          if (next.host !== url.host && !hostAllowed(options.allowHosts, next)) {
            throw new ToolRefusedError(
              `Refused to follow a redirect from ${url.host} to ${next.host}, which is not on the allow-list.`,
            );
          }
          if (next.origin !== url.origin) headers = without(headers, credentialHeaders);
          if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
            method = 'GET';
            body = undefined;
            headers = without(headers, bodyHeaders);
          }
          url = next;
          continue;
        }
        let text = '';
        try {
          if (method !== 'HEAD') text = await readCappedBody(response, maxBytes);
        } catch (error) {
          return failed(error, 'read');
        } finally {
          response.destroy();
        }
        const shown = ['content-type', 'content-length', 'location']
          .map((name) => [name, response.headers[name]] as const)
          .filter(([, value]) => value !== undefined)
          .map(([name, value]) => `${name}: ${value}`);
        return [`HTTP ${status} ${response.statusMessage ?? ''} (${url.href})`, ...shown, '', text]
          .join('\n')
          .trimEnd();
      }
    },
  });
}

function without(headers: Record<string, string>, names: ReadonlySet<string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase())));
}
