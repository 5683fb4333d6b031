// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is the config file's own reference syntax
import { describe, expect, it, onTestFinished } from 'vitest';
import { type McpOAuthServerOptions, startMcpOAuthServer } from '../../test/support/mcp/mcp-oauth-server.js';
import { createTestLogger } from '../../test/support/test-logger.js';
import { toolContext } from '../../test/support/tool-context.js';
import { loadMcpServers } from '../config-mcp-servers.js';
import { createRedactor } from '../secrets/index.js';
import { connectMcpServers, McpServerUnavailableError } from './index.js';

const secret = 'cc-secret-4f1d9a7e2b';
const refreshToken = 'rt-preissued-8c2e5d1f';

async function oauthServer(options: Partial<McpOAuthServerOptions> = {}) {
  const server = await startMcpOAuthServer({ clientId: 'holdfast-bot', clientSecret: secret, ...options });
  onTestFinished(() => server.close());
  return server;
}

/** The server's entry as an operator writes it, read as holdfast reads it, with the secret from the environment. */
function configure(entry: Record<string, unknown>, env: Record<string, string>) {
  return loadMcpServers('mcp.json', {
    env,
    cwd: '/etc/holdfast',
    readFile: () => JSON.stringify({ mcpServers: { ops: entry } }),
  });
}

async function connect(entry: Record<string, unknown>, env: Record<string, string>, now?: () => number) {
  const { servers, secrets } = configure(entry, env);
  const log = createTestLogger();
  const started = connectMcpServers(servers, {
    logger: log.logger,
    redact: createRedactor({ secrets }).redact,
    baseEnv: {},
    ...(now ? { now } : {}),
  });
  started.then(
    (source) => onTestFinished(() => source.close()),
    () => undefined,
  );
  return { started, log };
}

async function restart(source: Awaited<ReturnType<typeof connectMcpServers>>, service: string) {
  const tool = source.tools().find((candidate) => candidate.name === 'ops__restart');
  return tool?.execute({ service }, toolContext());
}

describe('a remote MCP server behind OAuth', () => {
  it('runs a tool with a token from the client_credentials grant, found through the server’s metadata', async () => {
    const server = await oauthServer();
    const { started, log } = await connect(
      { url: server.url, oauth: { clientId: 'holdfast-bot', clientSecret: '${OPS_SECRET}' } },
      { OPS_SECRET: secret },
    );
    const source = await started;

    expect(await restart(source, 'web')).toBe('restarted web');
    expect(server.calls).toEqual([{ service: 'web' }]);
    expect(server.tokenRequests).toEqual([
      {
        grantType: 'client_credentials',
        clientId: 'holdfast-bot',
        clientAuth: 'basic',
        resource: server.url,
        status: 200,
      },
    ]);
    // The first request had no token and was refused; every one after carried the issued token.
    expect(server.bearers[0]).toBeUndefined();
    expect(new Set(server.bearers.slice(1))).toEqual(new Set(server.issued));
    const logged = JSON.stringify(log.entries);
    expect(logged).not.toContain(secret);
    expect(logged).not.toContain(server.issued[0]);
  });

  it('hides the access token from a result that repeats it', async () => {
    const server = await oauthServer();
    const { started } = await connect(
      { url: server.url, oauth: { clientId: 'holdfast-bot', clientSecret: '${OPS_SECRET}' } },
      { OPS_SECRET: secret },
    );
    const source = await started;
    const whoami = source.tools().find((candidate) => candidate.name === 'ops__whoami');

    expect(await whoami?.execute({}, toolContext())).toBe(
      'signed in with Bearer [redacted OAuth token for ops]',
    );
    expect(server.issued).toHaveLength(1);
  });

  it('gets a new token when the server refuses the old one, and the call runs once', async () => {
    const server = await oauthServer();
    const { started } = await connect(
      { url: server.url, oauth: { clientId: 'holdfast-bot', clientSecret: '${OPS_SECRET}' } },
      { OPS_SECRET: secret },
    );
    const source = await started;
    server.endTokens();

    expect(await restart(source, 'api')).toBe('restarted api');
    expect(server.calls).toEqual([{ service: 'api' }]);
    expect(server.tokenRequests.map((request) => request.status)).toEqual([200, 200]);
    expect(server.bearers.at(-1)).toBe(server.issued[1]);
  });

  it('does not offer a token past its lifetime: a new one is fetched first', async () => {
    const server = await oauthServer({ expiresInSeconds: 600 });
    let now = Date.parse('2026-01-05T09:00:00Z');
    const { started } = await connect(
      { url: server.url, oauth: { clientId: 'holdfast-bot', clientSecret: '${OPS_SECRET}' } },
      { OPS_SECRET: secret },
      () => now,
    );
    const source = await started;
    const sentBefore = server.bearers.length;
    now += 600_000;

    expect(await restart(source, 'web')).toBe('restarted web');
    expect(server.tokenRequests).toHaveLength(2);
    // The lapsed token was never sent again; the call went with the new one.
    expect(server.bearers.slice(sentBefore)).not.toContain(server.issued[0]);
    expect(server.bearers.at(-1)).toBe(server.issued[1]);
  });

  it('uses a refresh token issued beforehand, and the one the server rotates it to', async () => {
    const server = await oauthServer({ clientSecret: undefined, refreshToken });
    const { started, log } = await connect(
      { url: server.url, oauth: { clientId: 'holdfast-bot', refreshToken: '${OPS_REFRESH_TOKEN}' } },
      { OPS_REFRESH_TOKEN: refreshToken },
    );
    const source = await started;
    server.endTokens();

    expect(await restart(source, 'web')).toBe('restarted web');
    const [first, second] = server.tokenRequests;
    expect(first).toMatchObject({
      grantType: 'refresh_token',
      clientAuth: 'none',
      refreshToken,
      status: 200,
    });
    expect(second).toMatchObject({ grantType: 'refresh_token', status: 200 });
    expect(second?.refreshToken).not.toBe(refreshToken);
    expect(JSON.stringify(log.entries)).not.toContain(refreshToken);
  });

  it('stops start-up with one line naming the server and the fix when the secret is wrong, never saying it', async () => {
    const server = await oauthServer();
    const wrong = 'wrong-secret-71b3c9d2';
    const { started, log } = await connect(
      { url: server.url, oauth: { clientId: 'holdfast-bot', clientSecret: '${OPS_SECRET}' } },
      { OPS_SECRET: wrong },
    );

    const message = await started.then(
      () => 'started',
      (error: Error) => (error instanceof McpServerUnavailableError ? error.message : String(error)),
    );
    expect(message).toMatch(
      /^MCP server "ops" could not start: the authorization server refused holdfast's OAuth client \(invalid_client: Client authentication failed\); check mcpServers\.ops\.oauth\.clientId and mcpServers\.ops\.oauth\.clientSecret\. Fix its entry/,
    );
    expect(message.split('\n')).toHaveLength(1);
    expect(message).not.toContain(wrong);
    expect(JSON.stringify(log.entries)).not.toContain(wrong);
    expect(server.calls).toEqual([]);
  });

  it('says how to configure OAuth when a server asks for it and the entry has none', async () => {
    const server = await oauthServer();
    const { started } = await connect({ url: server.url }, {});

    await expect(started).rejects.toThrow(
      /^MCP server "ops" could not start: it requires OAuth \(it answered 401 Unauthorized\) and its entry has none: add "oauth": \{"clientId": "…", "clientSecret": "\$\{VARIABLE\}"\} to ops/,
    );
  });

  it('sends the secret to no authorization server but the one the entry names', async () => {
    const server = await oauthServer();
    const { started } = await connect(
      {
        url: server.url,
        oauth: {
          clientId: 'holdfast-bot',
          clientSecret: '${OPS_SECRET}',
          issuer: 'https://login.example.com',
        },
      },
      { OPS_SECRET: secret },
    );

    await expect(started).rejects.toThrow(
      /^MCP server "ops" could not start: OAuth failed \(OAuth client information is bound to authorization server https:\/\/login\.example\.com/,
    );
    expect(server.tokenRequests).toEqual([]);
  });

  it('starts without an optional server it cannot authorize, and says so', async () => {
    const server = await oauthServer();
    const { started, log } = await connect({ url: server.url, optional: true }, {});
    const source = await started;

    expect(source.tools()).toEqual([]);
    expect(source.states().ops).toMatchObject({
      type: 'unavailable',
      error: expect.stringMatching(/^it requires OAuth/),
    });
    expect(log.entries.some((entry) => entry.msg.includes('optional MCP server is unavailable'))).toBe(true);
  });
});
