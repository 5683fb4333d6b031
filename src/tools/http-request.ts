import { z } from 'zod';
import { defineTool } from './define-tool.js';

export interface HttpRequestOptions {
  /** `example.com`, `*.example.com`, optionally with `:port`. */
  readonly allowHosts: readonly string[];
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
  readonly maxRedirects?: number;
  readonly fetch?: typeof fetch;
}

const safeMethods = new Set(['GET', 'HEAD']);

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
 * HTTP for the agent. A GET or HEAD to an allow-listed host is safe to run without asking; anything else
 * asks. Redirects are followed by hand so every hop is checked against the same list: an allowed host
 * must not bounce a request somewhere that was never approved.
 */
export function createHttpRequestTool(options: HttpRequestOptions) {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxResponseBytes ?? 32_000;
  const maxRedirects = options.maxRedirects ?? 5;
  return defineTool({
    name: 'http_request',
    description:
      'Make an HTTP request. GET and HEAD to allow-listed hosts run at once; other requests need approval.',
    parameters: z.object({
      method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
      url: z.url({ protocol: /^https?$/, error: 'an http or https URL' }),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.string().max(100_000).optional(),
    }),
    permission: (args) => {
      const url = new URL(args.url);
      if (safeMethods.has(args.method) && hostAllowed(options.allowHosts, url)) {
        return { type: 'allow', reason: `${args.method} to allow-listed host ${url.host}` };
      }
      return { type: 'ask', permissionType: 'http', summary: `${args.method} ${args.url}` };
    },
    async execute(args, ctx) {
      let url = new URL(args.url);
      let method: string = args.method;
      let body = args.body;
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
      for (let hop = 0; ; hop++) {
        let response: Response;
        try {
          response = await doFetch(url, { method, headers: args.headers, body, redirect: 'manual', signal });
        } catch (error) {
          const reason =
            (error as Error).name === 'TimeoutError'
              ? `timed out after ${timeoutMs} ms`
              : (error as Error).message;
          return `Request to ${url.href} failed: ${reason}`;
        }
        const location = response.headers.get('location');
        if (response.status >= 300 && response.status < 400 && location) {
          await response.body?.cancel();
          if (hop >= maxRedirects) return `Stopped after ${maxRedirects} redirects (last: ${location}).`;
          const next = new URL(location, url);
          if (next.protocol !== 'http:' && next.protocol !== 'https:') {
            return `Refused to follow a redirect to ${next.href}: only http and https are allowed.`;
          }
          // The approval (or the allow-list) covered the first host only: an unlisted hop is not followed.
          if (next.host !== url.host && !hostAllowed(options.allowHosts, next)) {
            return `Refused to follow a redirect from ${url.host} to ${next.host}, which is not on the allow-list.`;
          }
          if (
            response.status === 303 ||
            ((response.status === 301 || response.status === 302) && method === 'POST')
          ) {
            method = 'GET';
            body = undefined;
          }
          url = next;
          continue;
        }
        const text = method === 'HEAD' ? '' : await readCapped(response, maxBytes);
        const headers = ['content-type', 'content-length', 'location']
          .map((name) => [name, response.headers.get(name)] as const)
          .filter(([, value]) => value !== null)
          .map(([name, value]) => `${name}: ${value}`);
        return [`HTTP ${response.status} ${response.statusText} (${url.href})`, ...headers, '', text]
          .join('\n')
          .trimEnd();
      }
    },
  });
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    if (value.length > room) {
      chunks.push(value.subarray(0, room));
      size += room;
      truncated = true;
      await reader.cancel();
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  const text = Buffer.concat(chunks).toString('utf8');
  return truncated ? `${text}\n[response truncated at ${maxBytes} bytes]` : text;
}
