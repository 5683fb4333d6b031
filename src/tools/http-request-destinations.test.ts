import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { resultOf, toolContext } from '../../test/support/tool-context.js';
import type { ResolvedAddress } from './http-destination.js';
import { createHttpRequestTool } from './http-request.js';
import { internalRange } from './internal-address.js';

interface Served {
  /** `127.0.0.1:port` */
  readonly host: string;
  readonly port: number;
  readonly requests: http.IncomingHttpHeaders[];
}

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(
  handler: http.RequestListener = (_request, response) => response.end('ok'),
): Promise<Served> {
  const requests: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((request, response) => {
    requests.push(request.headers);
    handler(request, response);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { host: `127.0.0.1:${port}`, port, requests };
}

/** A resolver that plays back answers per host name, one call at a time (the last answer repeats). */
function dns(answers: Record<string, readonly string[]>) {
  const calls: string[] = [];
  const resolve = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    calls.push(hostname);
    const seen = calls.filter((name) => name === hostname).length;
    const list = answers[hostname];
    const address = list?.[Math.min(seen, list.length) - 1];
    if (address === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
  return { resolve, calls };
}

function parse(tool: ReturnType<typeof createHttpRequestTool>, input: unknown) {
  const result = tool.parse(input);
  if (!result.success) throw new Error(result.error);
  return result.data;
}

describe('internalRange', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local, where cloud metadata services answer'],
    ['10.1.2.3', 'private, RFC 1918'],
    ['172.31.0.1', 'private, RFC 1918'],
    ['192.168.1.1', 'private, RFC 1918'],
    ['100.64.0.1', 'carrier-grade NAT, 100.64/10'],
    ['0.0.0.0', '"this network", 0.0.0.0/8'],
    ['224.0.0.251', 'multicast'],
    ['fd12:3456::1', 'unique local, fc00::/7'],
    ['fe80::1%eth0', 'link-local'],
    ['64:ff9b::a00:1', 'private, RFC 1918'],
    ['8.8.8.8', undefined],
    ['::ffff:8.8.8.8', undefined],
    ['2606:4700:4700::1111', undefined],
  ])('%s → %s', (address, range) => {
    expect(internalRange(address)).toBe(range);
  });
});

describe('http_request and internal addresses', () => {
  it('asks, and says why, when an allow-listed host resolves to an internal address', async () => {
    const { resolve } = dns({ 'status.example.com': ['127.0.0.1'] });
    const tool = createHttpRequestTool({ allowHosts: ['status.example.com'], resolve });
    expect(
      await tool.permission(parse(tool, { url: 'http://status.example.com/health' }), toolContext()),
    ).toEqual({
      type: 'ask',
      permissionType: 'http',
      summary: 'GET http://status.example.com/health',
      reason: 'status.example.com resolves to 127.0.0.1, an internal address (loopback): needs approval',
    });
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is an internal address (link-local'],
    ['http://10.0.0.7/admin', '10.0.0.7 is an internal address (private, RFC 1918)'],
    ['http://[::1]/', '::1 is an internal address (loopback)'],
    ['http://[::ffff:7f00:1]/', '::ffff:7f00:1 is an internal address (loopback)'],
    ['http://2130706433/', '127.0.0.1 is an internal address (loopback)'],
    ['http://[fd00::1]/', 'fd00::1 is an internal address (unique local'],
  ])('asks before a GET to the allow-listed address %s', async (url, why) => {
    const host = new URL(url).host;
    const tool = createHttpRequestTool({ allowHosts: [host], resolve: dns({}).resolve });
    const decision = await tool.permission(parse(tool, { url }), toolContext());
    expect(decision).toMatchObject({ type: 'ask', reason: expect.stringContaining(why) });
  });

  it('refuses to connect, without approval, to an internal address an allow-listed name resolves to', async () => {
    const server = await serve();
    const { resolve } = dns({ 'status.example.com': ['127.0.0.1'] });
    const tool = createHttpRequestTool({ allowHosts: [`status.example.com:${server.port}`], resolve });
    const result = await resultOf(
      tool,
      parse(tool, { url: `http://status.example.com:${server.port}/health` }),
      toolContext(),
    );
    expect(result).toBe(
      'Refused: status.example.com resolves to 127.0.0.1, an internal address (loopback); holdfast reaches internal addresses only for hosts in HOLDFAST_HTTP_INTERNAL_HOSTS or at the address an approval showed.',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('reaches the internal address an approval showed, and nothing a later DNS answer brings', async () => {
    const server = await serve();
    const { resolve } = dns({ 'intranet.example.com': ['127.0.0.1', '10.255.255.1'] });
    const tool = createHttpRequestTool({ allowHosts: [], resolve });
    const args = parse(tool, {
      method: 'POST',
      url: `http://intranet.example.com:${server.port}/hook`,
      body: 'x',
    });
    const ctx = toolContext();
    expect(await tool.permission(args, ctx)).toMatchObject({
      type: 'ask',
      reason: 'intranet.example.com resolves to 127.0.0.1, an internal address (loopback): needs approval',
    });
    // A resume asks the tool again; the first look, kept in ctx.kv with the approval, still decides.
    await tool.permission(args, ctx);
    expect(await resultOf(tool, args, ctx)).toMatch(/^HTTP 200 OK/);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses an approved request whose name turned internal after the card was shown', async () => {
    const server = await serve();
    const { resolve } = dns({ 'partner.example.com': ['93.184.215.14', '127.0.0.1'] });
    const tool = createHttpRequestTool({ allowHosts: [], resolve });
    const args = parse(tool, { method: 'POST', url: `http://partner.example.com:${server.port}/hook` });
    const ctx = toolContext();
    expect(await tool.permission(args, ctx)).toMatchObject({
      reason: `POST can change things on partner.example.com:${server.port}: needs approval`,
    });
    await tool.permission(args, ctx);
    expect(await resultOf(tool, args, ctx)).toBe(
      'Refused: partner.example.com resolves to 127.0.0.1, an internal address (loopback), which the approval did not cover; holdfast reaches internal addresses only for hosts in HOLDFAST_HTTP_INTERNAL_HOSTS or at the address an approval showed.',
    );
    expect(server.requests).toHaveLength(0);
  });

  it('connects to the address it checked, without asking DNS a second time', async () => {
    const server = await serve();
    const { resolve, calls } = dns({ 'metrics.internal': ['127.0.0.1', '10.255.255.1'] });
    const tool = createHttpRequestTool({
      allowHosts: [`metrics.internal:${server.port}`],
      internalHosts: [`metrics.internal:${server.port}`],
      resolve,
    });
    const result = await resultOf(
      tool,
      parse(tool, { url: `http://metrics.internal:${server.port}/` }),
      toolContext(),
    );
    expect(result).toMatch(/^HTTP 200 OK/);
    expect(calls).toEqual(['metrics.internal']);
    expect(server.requests[0]?.host).toBe(`metrics.internal:${server.port}`);
  });

  it('re-checks the address on every redirect hop', async () => {
    const target = await serve();
    const first = await serve((_request, response) => {
      response.writeHead(302, { location: `http://sneaky.example.com:${target.port}/` });
      response.end();
    });
    const { resolve } = dns({ 'sneaky.example.com': ['127.0.0.1'] });
    const tool = createHttpRequestTool({
      allowHosts: [first.host, `sneaky.example.com:${target.port}`],
      internalHosts: [first.host],
      resolve,
    });
    expect(await resultOf(tool, parse(tool, { url: `http://${first.host}/` }), toolContext())).toBe(
      `Refused to follow a redirect to http://sneaky.example.com:${target.port}/: sneaky.example.com resolves to 127.0.0.1, an internal address (loopback); holdfast reaches internal addresses only for hosts in HOLDFAST_HTTP_INTERNAL_HOSTS or at the address an approval showed.`,
    );
    expect(target.requests).toHaveLength(0);
  });
});

describe('http_request and credentials on redirects', () => {
  const credentials = {
    Authorization: 'Bearer team-token',
    Cookie: 'session=abc',
    'Proxy-Authorization': 'Basic cHJveHk=',
    'X-Request-Id': 'req-1',
  };

  it('does not send Authorization, Cookie or Proxy-Authorization to another origin', async () => {
    const other = await serve();
    const first = await serve((_request, response) => {
      response.writeHead(302, { location: `http://${other.host}/landing` });
      response.end();
    });
    const hosts = [first.host, other.host];
    const tool = createHttpRequestTool({ allowHosts: hosts, internalHosts: hosts, resolve: dns({}).resolve });
    const result = await resultOf(
      tool,
      parse(tool, { url: `http://${first.host}/start`, headers: credentials }),
      toolContext(),
    );
    expect(result).toMatch(/^HTTP 200 OK/);
    expect(first.requests[0]).toMatchObject({ authorization: 'Bearer team-token', cookie: 'session=abc' });
    expect(other.requests[0]).toMatchObject({ 'x-request-id': 'req-1' });
    expect(other.requests[0]).not.toHaveProperty('authorization');
    expect(other.requests[0]).not.toHaveProperty('cookie');
    expect(other.requests[0]).not.toHaveProperty('proxy-authorization');
  });

  it('keeps them on a redirect within the same origin', async () => {
    const server = await serve((request, response) => {
      if (request.url === '/start') {
        response.writeHead(301, { location: '/moved' });
        response.end();
      } else response.end('moved here');
    });
    const tool = createHttpRequestTool({
      allowHosts: [server.host],
      internalHosts: [server.host],
      resolve: dns({}).resolve,
    });
    await resultOf(
      tool,
      parse(tool, { url: `http://${server.host}/start`, headers: credentials }),
      toolContext(),
    );
    expect(server.requests[1]).toMatchObject({ authorization: 'Bearer team-token', cookie: 'session=abc' });
  });
});
