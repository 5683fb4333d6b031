import { randomBytes } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BOT_SCOPES } from '../../../src/slack/web-api/bot-scopes.js';
import { openDatabase } from '../../../src/store/index.js';
import { startFakeOpenAIEndpoint } from '../../support/fake-openai-endpoint.js';
import { startFakeSlackApi } from '../../support/fake-slack-api.js';
import { tempDir } from '../../support/temp-dir.js';
import { freePort, projectRoot } from '../local/holdfast-process.js';
import { runToEnd } from './run-holdfast.js';

const doctor = ['npm', 'run', '--silent', 'doctor'] as const;

async function configuration() {
  const dir = tempDir('holdfast-doctor-');
  const model = await startFakeOpenAIEndpoint({ models: ['gpt-4.1-mini'] });
  const port = await freePort();
  return {
    dir,
    model,
    port,
    env: (api: { botToken: string; url: string }) => ({
      SLACK_BOT_TOKEN: api.botToken,
      SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
      SLACK_API_URL: api.url,
      PORT: String(port),
      OPENAI_API_KEY: 'sk-test-doctor',
      OPENAI_BASE_URL: model.url,
      HOLDFAST_POLICY: path.join(projectRoot, 'examples', 'policy.yml'),
      HOLDFAST_DB: dir.file('holdfast.db'),
      HOLDFAST_WORKDIR: dir.file('work'),
    }),
  };
}

describe('npm run doctor', () => {
  it('prints one passing line per check for a good configuration, changes nothing, and exits 0', async () => {
    const { dir, model, port, env } = await configuration();
    const api = await startFakeSlackApi({ scopes: BOT_SCOPES });
    onTestFinished(() => api.close());
    openDatabase(dir.file('holdfast.db')).close();
    const before = readFileSync(dir.file('holdfast.db'));

    const run = await runToEnd({ command: doctor, env: env(api) });

    expect(run.stderr).toBe('');
    expect(run.stdout.trimEnd().split('\n')).toEqual([
      '✓ config    http mode, model gpt-4.1-mini',
      `✓ database  ${dir.file('holdfast.db')} is writable and its pages are sound`,
      `✓ port      port ${port} is free for Slack events`,
      `✓ policy    ${path.join(projectRoot, 'examples', 'policy.yml')}: 6 rules, every name known`,
      '✓ slack     SLACK_BOT_TOKEN works: @holdfast in Holdfast Test, with every scope manifest.yml grants',
      `✓ model     OPENAI_MODEL=gpt-4.1-mini is served by ${model.url}`,
    ]);
    expect(run.code).toBe(0);
    // Nothing started: no message, no model call, and the database file is byte for byte what it was.
    expect(api.callsTo('auth.test')).toHaveLength(1);
    expect(api.calls.map((call) => call.method)).toEqual(['auth.test']);
    expect(model.requests).toHaveLength(0);
    expect(readFileSync(dir.file('holdfast.db')).equals(before)).toBe(true);
    expect(statSync(dir.path).isDirectory()).toBe(true);
  });

  it('prints what is wrong and what to do for a bad configuration, and exits 1', async () => {
    const { dir, model, env } = await configuration();
    const api = await startFakeSlackApi({ scopes: BOT_SCOPES.filter((scope) => scope !== 'chat:write') });
    onTestFinished(() => api.close());
    writeFileSync(dir.file('holdfast.db'), 'not a database at all\n'.repeat(300));

    const run = await runToEnd({ command: doctor, env: { ...env(api), OPENAI_MODEL: 'gpt-4-1-mini' } });

    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toEqual([
      '✓ config    http mode, model gpt-4-1-mini',
      expect.stringMatching(
        new RegExp(
          `^✗ database  HOLDFAST_DB=${dir.file('holdfast.db')} is not a usable SQLite database \\(file is not a database\\)\\. Restore it from a backup`,
        ),
      ),
      expect.stringMatching(/^✓ port {6}port \d+ is free for Slack events$/),
      expect.stringMatching(/^✓ policy {4}/),
      expect.stringMatching(
        /^✗ slack {5}the app is missing scopes that manifest\.yml grants: chat:write\. .*reinstall the app/,
      ),
      `✗ model     OPENAI_MODEL=gpt-4-1-mini does not exist at ${model.url}. Did you mean \`gpt-4.1-mini\`? Set OPENAI_MODEL to a model the endpoint serves.`,
    ]);
    expect(run.code).toBe(1);
  });
});
