import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startMcpHttpServer } from '../../test/support/mcp/mcp-http-server.js';
import { createTestLogger } from '../../test/support/test-logger.js';
import { toolContext } from '../../test/support/tool-context.js';
import { PersonInputNeeded } from '../agent/person-question.js';
import { loadPolicyFile } from '../approvals/load-policy.js';
import { approversFor } from '../approvals/policy-lookup.js';
import { loadMcpServers, type McpServerConfig } from '../config-mcp-servers.js';
import { policyVocabulary } from '../tools/index.js';
import { connectMcpServers, McpServersUnavailableError, McpServerUnavailableError } from './index.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const filesystem = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const askingServer = fileURLToPath(new URL('../../test/support/mcp/stdio-test-server.mjs', import.meta.url));
const shared = { optional: false, trustAnnotations: false, timeoutMs: 10_000 } as const;
const folder = mkdtempSync(path.join(os.tmpdir(), 'holdfast-mcp-files-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function stdio(name: string, args: string[], extra: Partial<McpServerConfig> = {}): McpServerConfig {
  return {
    type: 'stdio',
    name,
    command: process.execPath,
    args,
    env: {},
    ...shared,
    ...extra,
  } as McpServerConfig;
}

async function connect(servers: McpServerConfig[]) {
  const log = createTestLogger();
  const source = await connectMcpServers(servers, {
    logger: log.logger,
    redact: (text) => text,
    baseEnv: {},
  });
  onTestFinished(() => source.close());
  return { source, log };
}

describe('connectMcpServers', () => {
  it('offers the filesystem server tools, asking for writes and naming destructive ones', async () => {
    writeFileSync(path.join(folder, 'notes.txt'), 'deploy at noon\n');
    const { source } = await connect([stdio('files', [filesystem, folder])]);
    const byName = new Map(source.tools().map((tool) => [tool.name, tool]));
    const read = byName.get('files__read_text_file');
    const write = byName.get('files__write_file');
    expect(read?.jsonSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
    // Untrusted annotations change nothing: even a read asks, and nothing is repeated after a crash.
    expect(await read?.permission({ path: 'x' }, toolContext())).toMatchObject({ type: 'ask' });
    expect(read?.idempotent).toBe(false);
    expect(await write?.permission({ path: 'x', content: 'y' }, toolContext())).toEqual({
      type: 'ask',
      permissionType: 'mcp:files',
      summary: 'call write_file on the MCP server files (the server marks it destructive)',
    });
    const parsed = read?.parse({ path: path.join(folder, 'notes.txt') });
    expect(parsed).toMatchObject({ success: true });
    if (!parsed?.success) return;
    expect(await read?.execute(parsed.data, toolContext())).toBe('deploy at noon\n');
    expect(read?.parse({ path: 3 })).toEqual({ success: false, error: 'arguments/path must be string' });
    expect(source.states()).toEqual({ files: { type: 'connected', tools: source.tools().length } });
  });

  it('lets trusted annotations allow a read-only tool and mark an idempotent one', async () => {
    const { source } = await connect([
      stdio('everything', [everything, 'stdio'], { trustAnnotations: true }),
    ]);
    const echo = source.tools().find((tool) => tool.name === 'everything__echo');
    const toggle = source.tools().find((tool) => tool.name === 'everything__toggle-simulated-logging');
    expect(await echo?.permission({ message: 'x' }, toolContext())).toMatchObject({ type: 'allow' });
    expect(echo?.idempotent).toBe(true);
    expect(await toggle?.permission({}, toolContext())).toMatchObject({ type: 'ask' });
    expect(toggle?.idempotent).toBe(false);
  });

  it('stops with one line naming a server that cannot start, and the fix', async () => {
    const failing = connect([stdio('broken', ['-e', 'console.error("no credentials"); process.exit(2)'])]);
    await expect(failing).rejects.toBeInstanceOf(McpServerUnavailableError);
    await expect(failing).rejects.toThrow(
      /^MCP server "broken" could not start: .*Fix its entry in HOLDFAST_MCP_CONFIG .* or mark it "optional": true/,
    );
  });

  it('names every server that cannot start, one line each', async () => {
    const failing = connect([
      stdio('first', ['-e', 'process.exit(2)']),
      stdio('second', ['-e', 'process.exit(2)']),
    ]);
    await expect(failing).rejects.toBeInstanceOf(McpServersUnavailableError);
    const message = await failing.then(
      () => '',
      (error: Error) => error.message,
    );
    expect(message.split('\n').map((line) => line.slice(0, 35))).toEqual([
      'MCP server "first" could not start:',
      'MCP server "second" could not start',
    ]);
  });

  it('starts without an optional server, and says so', async () => {
    const { source, log } = await connect([
      stdio('broken', ['-e', 'process.exit(2)'], { optional: true }),
      stdio('everything', [everything, 'stdio']),
    ]);
    expect(source.tools().some((tool) => tool.name.startsWith('broken__'))).toBe(false);
    expect(source.tools().some((tool) => tool.name === 'everything__echo')).toBe(true);
    expect(source.states().broken).toMatchObject({ type: 'unavailable' });
    expect(log.entries.some((entry) => entry.msg.includes('optional MCP server is unavailable'))).toBe(true);
  });
});

describe('the README example', () => {
  it('parses, and its policy names only tools the filesystem server offers', async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const { servers } = loadMcpServers(path.join(root, 'examples/mcp/mcp-servers.json'), {
      env: { GITHUB_MCP_TOKEN: 'example-token-value' },
      cwd: root,
      readFile: (file) => readFileSync(file, 'utf8'),
    });
    expect(servers.map((server) => [server.name, server.type])).toEqual([
      ['files', 'stdio'],
      ['github', 'http'],
    ]);
    // The server the example runs through npx, started from this install instead.
    const { source } = await connect([stdio('files', [filesystem, folder])]);
    const policy = loadPolicyFile(
      path.join(root, 'examples/mcp/policy.yml'),
      policyVocabulary(source.tools()),
    );
    expect(policy.rules.map((rule) => [rule.tool, rule.action])).toEqual([
      ['files__read_*', 'allow'],
      ['files__list_*', 'allow'],
      ['files__move_file', 'deny'],
      ['files__*', 'ask'],
    ]);
    expect(approversFor(policy, 'files__create_directory', 'mcp:files')).toEqual({
      users: [],
      groups: ['S0ONCALL01'],
    });
  });
});

describe('a server that asks holdfast back', () => {
  it('cannot have holdfast sample its model; its question waits for the requester, whose answer it gets', async () => {
    const { source } = await connect([stdio('asker', [askingServer])]);
    const askBack = source.tools().find((tool) => tool.name === 'asker__ask_back');
    // Nobody has answered yet: the call waits for its requester, and says what it asks.
    const waiting = await askBack?.execute({}, toolContext()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(waiting).toBeInstanceOf(PersonInputNeeded);
    expect((waiting as PersonInputNeeded).question).toEqual({
      kind: 'form',
      askedBy: 'asker',
      message: 'Which cluster?',
      schema: { type: 'object', properties: { cluster: { type: 'string' } } },
    });

    // Answered: the server gets the answer when the call runs again. Sampling is refused either way.
    const answered = await askBack?.execute(
      {},
      toolContext({
        answerTo: async (ordinal) =>
          ordinal === 0 ? { type: 'answered', content: { cluster: 'eu-1' } } : undefined,
      }),
    );
    expect(typeof answered === 'string' ? answered.split('\n') : answered).toEqual([
      'sampling refused: MCP error -32601: Method not found',
      'elicitation answered: {"action":"accept","content":{"cluster":"eu-1"}}',
    ]);
  });
});

describe('a remote server that restarted', () => {
  it('gets a new session when it no longer knows the old one, and the call is sent once', async () => {
    const server = await startMcpHttpServer();
    onTestFinished(() => server.close());
    const { source, log } = await connect([
      { type: 'http', name: 'ops', url: server.url, headers: {}, ...shared },
    ]);
    const scale = source.tools().find((tool) => tool.name === 'ops__scale');
    server.forgetSessions();

    expect(await scale?.execute({ service: 'web', replicas: 2 }, toolContext())).toBe('scaled web to 2');
    expect(server.calls).toEqual([{ service: 'web', replicas: 2 }]);
    expect(log.entries.some((entry) => entry.msg.includes('had forgotten the session'))).toBe(true);
  });
});
