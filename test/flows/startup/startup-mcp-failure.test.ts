import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BOT_SCOPES } from '../../../src/slack/web-api/bot-scopes.js';
import { startFakeSlackApi } from '../../support/fake-slack-api.js';
import { tempDir } from '../../support/temp-dir.js';
import { freePort } from '../local/holdfast-process.js';
import { runToEnd, stackLine } from './run-holdfast.js';

describe('start-up with an MCP server that cannot start', () => {
  it('stops with one line naming the server, what it said and the fix, and shows no stack', async () => {
    const dir = tempDir('holdfast-startup-mcp-');
    const api = await startFakeSlackApi({ scopes: BOT_SCOPES });
    onTestFinished(() => api.close());
    writeFileSync(
      dir.file('mcp.json'),
      JSON.stringify({
        mcpServers: {
          github: {
            command: process.execPath,
            args: ['-e', 'console.error("GITHUB_TOKEN is not set"); process.exit(1)'],
          },
        },
      }),
    );

    const run = await runToEnd({
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

    expect(run.code).toBe(1);
    const [first, ...rest] = run.stderr.trimEnd().split('\n');
    expect(first).toBe('holdfast could not start:');
    expect(rest.filter((line) => line.includes('MCP server'))).toEqual([
      expect.stringMatching(
        /^MCP server "github" could not start: .*\(it said: GITHUB_TOKEN is not set\)\. Fix its entry in HOLDFAST_MCP_CONFIG .*"optional": true to start without its tools\.$/,
      ),
    ]);
    expect(run.stderr).not.toMatch(stackLine);
  });
});
