// biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${NAME}` is the config file's own reference syntax
import { describe, expect, it } from 'vitest';
import { loadMcpServers } from './config-mcp-servers.js';
import { ConfigError } from './errors.js';

function load(json: unknown, env: Record<string, string> = {}, files: Record<string, string> = {}) {
  const contents: Record<string, string> = { '/etc/holdfast/mcp.json': JSON.stringify(json), ...files };
  return loadMcpServers('mcp.json', {
    env,
    cwd: '/etc/holdfast',
    readFile: (file) => {
      const found = contents[file];
      if (found === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return found;
    },
  });
}

function problemsOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadMcpServers', () => {
  it('reads stdio and Streamable HTTP servers with their defaults', () => {
    const { servers } = load({
      mcpServers: {
        files: { command: 'node', args: ['server.js', '/srv'], cwd: 'servers' },
        github: { url: 'https://mcp.example.com/mcp', optional: true, trustAnnotations: true },
      },
    });
    expect(servers).toEqual([
      {
        type: 'stdio',
        name: 'files',
        command: 'node',
        args: ['server.js', '/srv'],
        env: {},
        cwd: '/etc/holdfast/servers',
        optional: false,
        trustAnnotations: false,
        timeoutMs: 60_000,
      },
      {
        type: 'http',
        name: 'github',
        url: 'https://mcp.example.com/mcp',
        headers: {},
        optional: true,
        trustAnnotations: true,
        timeoutMs: 60_000,
      },
    ]);
  });

  it('resolves ${VAR} from the environment or VAR_FILE, and makes header values secrets', () => {
    const { servers, secrets } = load(
      {
        mcpServers: {
          k8s: { command: 'k8s-mcp', env: { KUBECONFIG: '${KUBECONFIG}', API_KEY: '${K8S_KEY}' } },
          github: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${GH_TOKEN}' } },
        },
      },
      {
        KUBECONFIG: '/home/ops/.kube/config',
        K8S_KEY_FILE: '/run/secrets/k8s',
        GH_TOKEN: 'ghp_header_value_123',
      },
      { '/run/secrets/k8s': 'k8s-secret-from-file\n' },
    );
    expect(servers[0]).toMatchObject({
      env: { KUBECONFIG: '/home/ops/.kube/config', API_KEY: 'k8s-secret-from-file' },
    });
    expect(servers[1]).toMatchObject({ headers: { Authorization: 'Bearer ghp_header_value_123' } });
    expect(secrets.map((secret) => secret.value)).toEqual(['k8s-secret-from-file', 'ghp_header_value_123']);
  });

  it('reads OAuth for a remote server, its client secret and refresh token from variables, as secrets', () => {
    const { servers, secrets } = load(
      {
        mcpServers: {
          grafana: {
            url: 'https://grafana.example.com/mcp',
            oauth: {
              clientId: 'holdfast',
              clientSecret: '${GRAFANA_CLIENT_SECRET}',
              scope: 'mcp:tools',
              issuer: 'https://login.example.com',
            },
          },
          pager: {
            url: 'https://pager.example.com/mcp',
            oauth: { clientId: '${PAGER_CLIENT_ID}', refreshToken: '${PAGER_REFRESH}' },
          },
        },
      },
      { GRAFANA_CLIENT_SECRET: 'grafana-client-secret-1', PAGER_CLIENT_ID: 'hf', PAGER_REFRESH_FILE: 'rt' },
      { '/etc/holdfast/rt': 'pager-refresh-token-2\n' },
    );
    expect(servers.map((server) => (server.type === 'http' ? server.oauth : undefined))).toEqual([
      {
        clientId: 'holdfast',
        clientSecret: 'grafana-client-secret-1',
        scope: 'mcp:tools',
        issuer: 'https://login.example.com',
      },
      { clientId: 'hf', refreshToken: 'pager-refresh-token-2' },
    ]);
    expect(secrets).toEqual([
      { name: 'mcpServers.grafana.oauth.clientSecret', value: 'grafana-client-secret-1' },
      { name: 'PAGER_REFRESH (from PAGER_REFRESH_FILE)', value: 'pager-refresh-token-2' },
    ]);
  });

  it('takes an OAuth secret only by reference, and needs a secret or a refresh token', () => {
    const literal = problemsOf(() =>
      load({
        mcpServers: {
          ops: { url: 'https://ops.example.com/mcp', oauth: { clientId: 'a', clientSecret: 's3cr3t' } },
        },
      }),
    );
    expect(literal).toContain(
      'mcpServers.ops.oauth.clientSecret: a reference such as ${NAME}, never the secret itself',
    );
    expect(literal).not.toContain('s3cr3t');
    expect(
      problemsOf(() =>
        load({ mcpServers: { ops: { url: 'https://ops.example.com/mcp', oauth: { clientId: 'a' } } } }),
      ),
    ).toContain('mcpServers.ops.oauth: give clientSecret (the client_credentials grant) or refreshToken');
  });

  it("never hands a server holdfast's own settings, and names what is unset", () => {
    const message = problemsOf(() =>
      load(
        {
          mcpServers: {
            files: { command: 'x', env: { TOKEN: '${SLACK_BOT_TOKEN}', OTHER: '${NOT_SET}' } },
          },
        },
        { SLACK_BOT_TOKEN: 'xoxb-1' },
      ),
    );
    expect(message).toContain("mcpServers.files.env.TOKEN: ${SLACK_BOT_TOKEN} is holdfast's own setting");
    expect(message).toContain(
      'mcpServers.files.env.OTHER: ${NOT_SET} is not set (set NOT_SET or NOT_SET_FILE)',
    );
  });

  it('says which entry is malformed, and what the file should look like when it is not JSON', () => {
    expect(problemsOf(() => load({ mcpServers: { 'bad name!': { command: 'x' } } }))).toContain(
      'mcpServers.bad name!',
    );
    expect(problemsOf(() => load({ mcpServers: { files: { command: 'x', colour: 'red' } } }))).toContain(
      'HOLDFAST_MCP_CONFIG (mcp.json) is invalid',
    );
    const notJson = problemsOf(() =>
      loadMcpServers('mcp.json', { env: {}, cwd: '/', readFile: () => '{ nope' }),
    );
    expect(notJson).toContain('HOLDFAST_MCP_CONFIG: cannot read mcp.json as JSON');
    expect(notJson).toContain('{"mcpServers"');
  });

  it('is empty when HOLDFAST_MCP_CONFIG is not set', () => {
    expect(loadMcpServers(undefined, { env: {}, cwd: '/', readFile: () => '' })).toEqual({
      servers: [],
      secrets: [],
    });
  });
});
