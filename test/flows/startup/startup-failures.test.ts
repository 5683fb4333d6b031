import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BOT_SCOPES } from '../../../src/slack/web-api/bot-scopes.js';
import { startFakeOpenAIEndpoint } from '../../support/fake-openai-endpoint.js';
import { startFakeSlackApi } from '../../support/fake-slack-api.js';
import { tempDir } from '../../support/temp-dir.js';
import { freePort } from '../local/holdfast-process.js';
import { openToOthers, runToEnd, stackLine, takenPort } from './run-holdfast.js';

const signingSecret = randomBytes(16).toString('hex');

/** The message holdfast stopped with, one entry per line after its first. */
function problemLines(stderr: string): string[] {
  const [first, ...rest] = stderr.trimEnd().split('\n');
  expect(first).toBe('holdfast could not start:');
  return rest;
}

describe('start-up, on a first install with things wrong', () => {
  it('names PORT, HOLDFAST_DB, SLACK_BOT_TOKEN and the model endpoint at once, exits 1, and shows no stack', async () => {
    const dir = tempDir('holdfast-startup-');
    openToOthers(dir.path);
    mkdirSync(dir.file('locked'), { mode: 0o555 });
    const api = await startFakeSlackApi();
    onTestFinished(() => api.close());
    const port = await takenPort();
    const nothingListens = await freePort();

    const run = await runToEnd({
      asOrdinaryUser: true,
      env: {
        SLACK_BOT_TOKEN: 'xoxb-1111-2222-not-the-installed-token',
        SLACK_SIGNING_SECRET: signingSecret,
        SLACK_API_URL: api.url,
        PORT: String(port),
        OPENAI_API_KEY: 'sk-test-startup-checks',
        OPENAI_BASE_URL: `http://127.0.0.1:${nothingListens}/v1`,
        HOLDFAST_DB: dir.file('locked/holdfast.db'),
        HOLDFAST_WORKDIR: dir.file('work'),
      },
    });

    expect(run.code).toBe(1);
    const lines = problemLines(run.stderr);
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^database: HOLDFAST_DB: holdfast cannot write to the folder ${dir.file('locked')} \\(EACCES\\)\\. Give the user holdfast runs as .* or set HOLDFAST_DB to a file in a writable folder\\.$`,
        ),
      ),
      `port: PORT=${port} (Slack events) is already in use by another process. Stop that process (\`lsof -i :${port}\` or \`ss -ltnp\` shows which), or set PORT to a free port.`,
      expect.stringMatching(
        /^slack: SLACK_BOT_TOKEN was rejected by Slack \(invalid_auth\)\. Copy the Bot User OAuth Token .*OAuth & Permissions/,
      ),
      `model: could not reach the model endpoint 127.0.0.1:${nothingListens}: connection refused: nothing is listening there (ECONNREFUSED). Check OPENAI_BASE_URL, and the network and proxy settings (HTTPS_PROXY).`,
    ]);
    expect(run.stderr).not.toMatch(stackLine);
    expect(run.stderr).not.toContain('not-the-installed-token');
  });

  it('names missing scopes, an unknown model and a policy typo in Socket Mode', async () => {
    const dir = tempDir('holdfast-startup-');
    const api = await startFakeSlackApi({
      scopes: BOT_SCOPES.filter((scope) => scope !== 'usergroups:read' && scope !== 'assistant:write'),
    });
    onTestFinished(() => api.close());
    const model = await startFakeOpenAIEndpoint({ models: ['gpt-4.1-mini', 'gpt-4.1'] });
    writeFileSync(
      dir.file('policy.yml'),
      [
        'rules:',
        '  - tool: run_shell',
        '    action: ask',
        '  - tool: run_shel',
        '    action: allow',
        '',
      ].join('\n'),
    );

    const run = await runToEnd({
      env: {
        SLACK_BOT_TOKEN: api.botToken,
        SLACK_APP_TOKEN: api.appToken,
        SLACK_API_URL: api.url,
        OPENAI_API_KEY: 'sk-test-startup-checks',
        OPENAI_BASE_URL: model.url,
        OPENAI_MODEL: 'gpt-4.1-mnii',
        HOLDFAST_POLICY: dir.file('policy.yml'),
        HOLDFAST_DB: dir.file('holdfast.db'),
        HOLDFAST_WORKDIR: dir.file('work'),
      },
    });

    expect(run.code).toBe(1);
    expect(problemLines(run.stderr)).toEqual([
      'policy: HOLDFAST_POLICY has a problem:',
      `  ${dir.file('policy.yml')}:4: rules.1.tool: unknown tool "run_shel"; did you mean \`run_shell\`?`,
      '  Fix the file and start again.',
      expect.stringMatching(
        /^slack: the app is missing scopes that manifest\.yml grants: usergroups:read, assistant:write\. .*reinstall the app to the workspace/,
      ),
      `model: OPENAI_MODEL=gpt-4.1-mnii does not exist at ${model.url}. Did you mean \`gpt-4.1-mini\`? Set OPENAI_MODEL to a model the endpoint serves.`,
    ]);
    expect(run.stderr).not.toMatch(stackLine);
    // Nothing was started: the checks run before any connection is opened or the database written.
    expect(api.callsTo('apps.connections.open')).toHaveLength(0);
    expect(model.requests).toHaveLength(0);
  });

  it('names SLACK_APP_TOKEN when Slack refuses the Socket Mode connection', async () => {
    const dir = tempDir('holdfast-startup-');
    const api = await startFakeSlackApi();
    onTestFinished(() => api.close());

    const run = await runToEnd({
      env: {
        SLACK_BOT_TOKEN: api.botToken,
        SLACK_APP_TOKEN: 'xapp-1-A0WRONG-not-the-app-token',
        SLACK_API_URL: api.url,
        HOLDFAST_DB: dir.file('holdfast.db'),
        HOLDFAST_WORKDIR: dir.file('work'),
      },
    });

    expect(run.code).toBe(1);
    expect(problemLines(run.stderr)).toEqual([
      'slack-app-token: SLACK_APP_TOKEN was rejected by Slack (invalid_auth). Create an app-level token with the connections:write scope under "Basic Information" → "App-Level Tokens" and set SLACK_APP_TOKEN to it (xapp-…).',
    ]);
    expect(run.stderr).not.toMatch(stackLine);
  });

  it("names PORT when the local workspace's port is taken", async () => {
    const dir = tempDir('holdfast-startup-');
    const port = await takenPort('127.0.0.1');

    const run = await runToEnd({
      env: { PORT: String(port), HOLDFAST_DB: dir.file('holdfast.db'), HOLDFAST_WORKDIR: dir.file('work') },
    });

    expect(run.code).toBe(1);
    expect(problemLines(run.stderr)).toEqual([
      `port: PORT=${port} (the local workspace page) is already in use by another process. Stop that process (\`lsof -i :${port}\` or \`ss -ltnp\` shows which), or set PORT to a free port.`,
    ]);
    expect(run.stderr).not.toMatch(stackLine);
  });

  it('names HOLDFAST_DB when the database file is damaged, without a stack', async () => {
    const dir = tempDir('holdfast-startup-');
    writeFileSync(dir.file('holdfast.db'), 'these bytes were a database once\n'.repeat(200));

    const run = await runToEnd({
      env: { PORT: '0', HOLDFAST_DB: dir.file('holdfast.db'), HOLDFAST_WORKDIR: dir.file('work') },
    });

    expect(run.code).toBe(1);
    expect(problemLines(run.stderr)).toEqual([
      `database (HOLDFAST_DB): Database ${dir.file('holdfast.db')} is not a usable SQLite database (file is not a database). Restore it from a backup.`,
    ]);
    expect(run.stderr).not.toMatch(stackLine);
  });

  it('names HOLDFAST_DB when its PostgreSQL server cannot be reached, and never shows the password', async () => {
    const dir = tempDir('holdfast-startup-');
    const nothingListens = await freePort();
    const password = 'pg-password-never-shown-42';

    const run = await runToEnd({
      env: {
        PORT: '0',
        HOLDFAST_DB: `postgres://holdfast:${password}@127.0.0.1:${nothingListens}/holdfast`,
        HOLDFAST_WORKDIR: dir.file('work'),
      },
    });

    expect(run.code).toBe(1);
    expect(problemLines(run.stderr)).toEqual([
      `database: HOLDFAST_DB: cannot reach the PostgreSQL server at 127.0.0.1:${nothingListens}/holdfast (ECONNREFUSED). Check the host and port in HOLDFAST_DB, that the server is running, and that this machine may connect to it (firewall, security group).`,
    ]);
    expect(run.stderr + run.stdout).not.toContain(password);
    expect(run.stderr).not.toMatch(stackLine);
  });
});
