import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BOT_SCOPES } from '../../../src/slack/web-api/bot-scopes.js';
import { startFakeSlackApi } from '../../support/fake-slack-api.js';
import { startMcpOAuthServer } from '../../support/mcp/mcp-oauth-server.js';
import { tempDir } from '../../support/temp-dir.js';
import { freePort } from '../local/holdfast-process.js';
import { runToEnd } from './run-holdfast.js';

const require = createRequire(import.meta.url);
const everything = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('npm run doctor with MCP servers', () => {
  it('checks each server on a line of its own, and fails for one that cannot start', async () => {
    const dir = tempDir('holdfast-doctor-mcp-');
    const api = await startFakeSlackApi({ scopes: BOT_SCOPES });
    onTestFinished(() => api.close());
    writeFileSync(
      dir.file('mcp.json'),
      JSON.stringify({
        mcpServers: {
          everything: { command: process.execPath, args: [everything, 'stdio'] },
          broken: { command: process.execPath, args: ['-e', 'console.error("bad key"); process.exit(2)'] },
          spare: { command: process.execPath, args: ['-e', 'process.exit(2)'], optional: true },
        },
      }),
    );

    const run = await runToEnd({
      command: ['npm', 'run', '--silent', 'doctor'],
      env: {
        SLACK_BOT_TOKEN: api.botToken,
        SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
        SLACK_API_URL: api.url,
        PORT: String(await freePort()),
        HOLDFAST_DB: dir.file('holdfast.db'),
        HOLDFAST_WORKDIR: dir.file('work'),
        HOLDFAST_MCP_CONFIG: dir.file('mcp.json'),
      },
    });

    const lines = run.stdout.split('\n');
    expect(lines.find((line) => line.includes('mcp everything'))).toMatch(
      /^✓ mcp everything +.*: connected, \d+ tools$/,
    );
    expect(lines.find((line) => line.includes('mcp broken'))).toMatch(/^✗ mcp broken +.*unavailable/);
    expect(run.stdout).toContain('Fix its entry in HOLDFAST_MCP_CONFIG');
    expect(lines.find((line) => line.includes('mcp spare'))).toMatch(/^! mcp spare +.*it is optional/);
    expect(run.code).toBe(1);
  });

  it('connects a server behind OAuth with a secret from a file, and names one whose entry lacks OAuth', async () => {
    const dir = tempDir('holdfast-doctor-mcp-oauth-');
    const api = await startFakeSlackApi({ scopes: BOT_SCOPES });
    onTestFinished(() => api.close());
    const secret = randomBytes(16).toString('hex');
    const server = await startMcpOAuthServer({ clientId: 'holdfast-bot', clientSecret: secret });
    onTestFinished(() => server.close());
    writeFileSync(dir.file('ops-secret'), `${secret}\n`);
    writeFileSync(
      dir.file('mcp.json'),
      JSON.stringify({
        mcpServers: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own reference syntax
          ops: { url: server.url, oauth: { clientId: 'holdfast-bot', clientSecret: '${OPS_SECRET}' } },
          unsigned: { url: server.url },
        },
      }),
    );

    const run = await runToEnd({
      command: ['npm', 'run', '--silent', 'doctor'],
      env: {
        SLACK_BOT_TOKEN: api.botToken,
        SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
        SLACK_API_URL: api.url,
        PORT: String(await freePort()),
        HOLDFAST_DB: dir.file('holdfast.db'),
        HOLDFAST_WORKDIR: dir.file('work'),
        HOLDFAST_MCP_CONFIG: dir.file('mcp.json'),
        OPS_SECRET_FILE: dir.file('ops-secret'),
      },
    });

    const lines = run.stdout.split('\n');
    expect(lines.find((line) => line.includes('mcp ops'))).toMatch(/^✓ mcp ops +.*: connected, 2 tools$/);
    expect(lines.find((line) => line.includes('mcp unsigned'))).toMatch(
      /^✗ mcp unsigned +.*unavailable: it requires OAuth \(it answered 401 Unauthorized\) and its entry has none/,
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain(secret);
    expect(run.code).toBe(1);
  });
});
