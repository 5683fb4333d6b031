import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { resultOf, toolContext } from '../../test/support/tool-context.js';
import { outputText } from '../agent/tool-outcome.js';
import type { ResolveHost } from './http-destination.js';
import { createHttpRequestTool, hostAllowed } from './http-request.js';

/** DNS for the tests: public documentation-free answers, never the network. */
const resolve: ResolveHost = async (hostname) => {
  if (hostname.endsWith('.example.com') || hostname.endsWith('.example.org')) {
    return [{ address: '93.184.215.14', family: 4 }];
  }
  throw Object.assign(new Error(`unknown host ${hostname}`), { code: 'ENOTFOUND' });
};

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function parse(tool: ReturnType<typeof createHttpRequestTool>, input: unknown) {
  const result = tool.parse(input);
  if (!result.success) throw new Error(result.error);
  return result.data;
}

describe('hostAllowed', () => {
  it.each([
    [['example.com'], 'https://example.com/x', true],
    [['example.com'], 'https://api.example.com/x', false],
    [['*.example.com'], 'https://api.example.com/x', true],
    [['*.example.com'], 'https://evil-example.com/x', false],
    [['example.com'], 'https://example.com:8443/x', false],
    [['example.com:8443'], 'https://example.com:8443/x', true],
    [['example.com'], 'https://example.com.evil.io/', false],
  ] as const)('%j allows %s: %s', (hosts, url, expected) => {
    expect(hostAllowed(hosts, new URL(url))).toBe(expected);
  });
});

describe('http_request', () => {
  it('allows GET and HEAD to allow-listed hosts and asks for everything else', async () => {
    const tool = createHttpRequestTool({ allowHosts: ['status.example.com'], resolve });
    const ctx = toolContext();
    expect(
      await tool.permission(parse(tool, { url: 'https://status.example.com/health' }), ctx),
    ).toMatchObject({
      type: 'allow',
    });
    expect(
      await tool.permission(parse(tool, { method: 'POST', url: 'https://status.example.com/x' }), ctx),
    ).toEqual({
      type: 'ask',
      permissionType: 'http',
      summary: 'POST https://status.example.com/x',
      reason: 'POST can change things on status.example.com: needs approval',
    });
    expect(await tool.permission(parse(tool, { url: 'https://other.example.org/' }), ctx)).toEqual({
      type: 'ask',
      permissionType: 'http',
      summary: 'GET https://other.example.org/',
      reason: 'other.example.org is not on HOLDFAST_HTTP_ALLOW_HOSTS: needs approval',
    });
  });

  it('refuses non-http URLs at parse time', () => {
    const tool = createHttpRequestTool({ allowHosts: [] });
    expect(tool.parse({ url: 'file:///etc/passwd' }).success).toBe(false);
    expect(tool.parse({ url: 'not a url' }).success).toBe(false);
  });

  it('returns status, headers and body', async () => {
    const host = await serve((request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(`${request.method} ${request.url} ok`);
    });
    // The test server listens on loopback, an internal address: it has to be listed as internal too.
    const tool = createHttpRequestTool({ allowHosts: [host], internalHosts: [host] });
    const result = await resultOf(tool, parse(tool, { url: `http://${host}/health` }), toolContext());
    expect(result).toMatch(/^HTTP 200 OK/);
    expect(result).toContain('content-type: text/plain');
    expect(result).toContain('GET /health ok');
  });

  it('follows redirects on the allow-list and refuses one that leaves it', async () => {
    const outside = await serve((_request, response) => response.end('secret'));
    const inside = await serve((request, response) => {
      if (request.url === '/hop') {
        response.writeHead(302, { location: '/final' });
        response.end();
      } else if (request.url === '/away') {
        response.writeHead(302, { location: `http://${outside}/` });
        response.end();
      } else response.end('arrived');
    });
    const tool = createHttpRequestTool({ allowHosts: [inside], internalHosts: [inside, outside] });
    expect(await resultOf(tool, parse(tool, { url: `http://${inside}/hop` }), toolContext())).toContain(
      'arrived',
    );
    const refused = await resultOf(tool, parse(tool, { url: `http://${inside}/away` }), toolContext());
    expect(refused).toBe(
      `Refused to follow a redirect from ${inside} to ${outside}, which is not on the allow-list.`,
    );
  });

  it('caps the response size and times out', async () => {
    const host = await serve((request, response) => {
      if (request.url === '/slow') return void setTimeout(() => response.end('late'), 2_000);
      response.end('x'.repeat(10_000));
    });
    const tool = createHttpRequestTool({
      allowHosts: [host],
      internalHosts: [host],
      maxResponseBytes: 100,
      timeoutMs: 300,
    });
    const big = await resultOf(tool, parse(tool, { url: `http://${host}/big` }), toolContext());
    expect(big).toContain('[response truncated at 100 bytes]');
    expect(await resultOf(tool, parse(tool, { url: `http://${host}/slow` }), toolContext())).toBe(
      `Request to http://${host}/slow failed: timed out after 300 ms`,
    );
  });

  it('names the host and the cause when nothing answers at the address it resolved to', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const host = `grafana.corp.test:${port}`;
    const tool = createHttpRequestTool({
      allowHosts: [host],
      internalHosts: [host],
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    expect(await resultOf(tool, parse(tool, { url: `http://${host}/api/health` }), toolContext())).toBe(
      `Request to http://${host}/api/health failed: could not reach ${host}: connection refused: nothing is listening there (ECONNREFUSED)`,
    );
  });

  it('reports a host that does not resolve as a failed run, with the error', async () => {
    const tool = createHttpRequestTool({ allowHosts: ['nowhere.invalid'], resolve });
    const output = await tool.execute(parse(tool, { url: 'http://nowhere.invalid/' }), toolContext());
    expect(output).toMatchObject({ type: 'failed', error: expect.stringContaining('nowhere.invalid') });
    expect(outputText(output)).toMatch(/^Request to http:\/\/nowhere\.invalid\/ failed: /);
  });

  it('reports a connection failure as a result the model can read', async () => {
    const tool = createHttpRequestTool({ allowHosts: [], internalHosts: ['127.0.0.1:1'] });
    const result = await resultOf(tool, parse(tool, { url: 'http://127.0.0.1:1/' }), toolContext());
    expect(result).toMatch(/^Request to http:\/\/127\.0\.0\.1:1\/ failed: /);
  });
});
