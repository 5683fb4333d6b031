import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const cwd = '/srv/holdfast';
const botToken = `xoxb-${'1'.repeat(12)}-test`;
const appToken = `xapp-1-${'A'.repeat(10)}-test`;
const signingSecret = 'a'.repeat(32);

function refusal(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env, cwd);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected the configuration to be refused');
}

describe('loadConfig', () => {
  it('runs locally on embedded defaults when nothing is set', () => {
    const config = loadConfig({}, cwd);
    expect(config.slack).toEqual({ type: 'local', port: 3000 });
    expect(config.model).toEqual({ type: 'demo' });
    expect(config.databasePath).toBe(path.join(cwd, 'data', 'holdfast.db'));
    expect(config.synchronous).toBe('FULL');
    expect(config.approvalTtlMs).toBe(24 * 3_600_000);
    expect(config.workdir).toBe(path.join(cwd, 'workspace'));
    expect(config.deployServices).toEqual({});
  });

  it.each([
    ['postgres://holdfast:s3cret-pass-word@db.internal:5432/holdfast?sslmode=require'],
    ['postgresql://holdfast:s3cret-pass-word@db.internal/holdfast'],
    ['  POSTGRES://holdfast:s3cret-pass-word@db.internal/holdfast'],
  ])('selects PostgreSQL for HOLDFAST_DB=%s, keeps its password a secret and out of tools', (url) => {
    const config = loadConfig({ HOLDFAST_DB: url, HOLDFAST_DB_POOL_SIZE: '25' }, cwd);
    expect(config.postgres).toEqual({ url: url.trim(), poolSize: 25 });
    // Files kept beside the database (the local workspace's) stay in the default folder.
    expect(config.databasePath).toBe(path.join(cwd, 'data', 'holdfast.db'));
    expect(config.secrets.map((secret) => secret.value)).toContain('s3cret-pass-word');
    expect(config.toolEnv.HOLDFAST_DB).toBeUndefined();
  });

  it('keeps any other HOLDFAST_DB a SQLite path, with the default pool size unused', () => {
    const config = loadConfig({ HOLDFAST_DB: 'state/postgres.db' }, cwd);
    expect(config.postgres).toBeUndefined();
    expect(config.databasePath).toBe(path.join(cwd, 'state', 'postgres.db'));
    expect(loadConfig({ HOLDFAST_DB: 'postgres' }, cwd).postgres).toBeUndefined();
  });

  it('refuses a pool size that is not a positive number', () => {
    expect(refusal({ HOLDFAST_DB: 'postgres://h/db', HOLDFAST_DB_POOL_SIZE: '0' }).issues.join()).toMatch(
      /HOLDFAST_DB_POOL_SIZE/,
    );
  });

  it('chooses Socket Mode when an app token is set', () => {
    const config = loadConfig({ SLACK_BOT_TOKEN: botToken, SLACK_APP_TOKEN: appToken }, cwd);
    expect(config.slack).toMatchObject({ type: 'socket', botToken, appToken });
  });

  it('chooses HTTP mode with a signing secret, on PORT, passing SLACK_API_URL through', () => {
    const config = loadConfig(
      {
        SLACK_BOT_TOKEN: botToken,
        SLACK_SIGNING_SECRET: signingSecret,
        PORT: '8080',
        SLACK_API_URL: 'https://slack-gov.com/api/',
      },
      cwd,
    );
    expect(config.slack).toEqual({
      type: 'http',
      botToken,
      signingSecret,
      port: 8080,
      apiUrl: 'https://slack-gov.com/api/',
    });
  });

  it('uses OpenAI when a key is set', () => {
    const config = loadConfig(
      { OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-4.1', OPENAI_TIMEOUT: '30s', OPENAI_MAX_RETRIES: '2' },
      cwd,
    );
    expect(config.model).toEqual({
      type: 'openai',
      apiKey: 'sk-test',
      baseUrl: undefined,
      model: 'gpt-4.1',
      timeoutMs: 30_000,
      maxRetries: 2,
    });
  });

  it('names a malformed token and says where to find the right one', () => {
    const error = refusal({ SLACK_BOT_TOKEN: 'xoxp-user-token', SLACK_SIGNING_SECRET: signingSecret });
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatch(
      /^SLACK_BOT_TOKEN: expected a bot token starting with xoxb-.*OAuth & Permissions/,
    );
    // The value itself is never echoed back: it may be a real secret pasted in the wrong place.
    expect(error.message).not.toContain('xoxp-user-token');
  });

  it('says which token was pasted into the other variable', () => {
    const swapped = refusal({ SLACK_BOT_TOKEN: appToken, SLACK_APP_TOKEN: botToken });
    expect(swapped.issues).toEqual([
      expect.stringMatching(
        /^SLACK_BOT_TOKEN: expected a bot token starting with xoxb- \(this is an app-level token, xapp-, which belongs in SLACK_APP_TOKEN\)\. Copy/,
      ),
      expect.stringMatching(
        /^SLACK_APP_TOKEN: expected an app-level token starting with xapp- \(this is a bot token, xoxb-, which belongs in SLACK_BOT_TOKEN\)\. Create/,
      ),
    ]);
    expect(
      refusal({ SLACK_BOT_TOKEN: 'xoxp-1-user', SLACK_SIGNING_SECRET: signingSecret }).issues[0],
    ).toContain('(this is a user token, xoxp-; holdfast acts as its bot, never as a person)');
    expect(swapped.message).not.toContain(appToken);
  });

  it('passes the variables HOLDFAST_TOOL_ENV names on to tools', () => {
    const config = loadConfig(
      {
        HOLDFAST_TOOL_ENV: 'KUBECONFIG, AWS_PROFILE,AWS_REGION',
        KUBECONFIG: '/etc/kube/config',
        AWS_PROFILE: 'ops',
      },
      cwd,
    );
    expect(config.toolEnvNames).toEqual(['KUBECONFIG', 'AWS_PROFILE', 'AWS_REGION']);
    expect(config.toolEnv).toMatchObject({ KUBECONFIG: '/etc/kube/config', AWS_PROFILE: 'ops' });
  });

  it.each([
    ['SLACK_BOT_TOKEN', { SLACK_BOT_TOKEN: botToken, SLACK_SIGNING_SECRET: signingSecret }],
    ['OPENAI_API_KEY', { OPENAI_API_KEY: 'sk-test-not-for-tools' }],
    ['SLACK_SIGNING_SECRET_FILE', {}],
    ['GITHUB_TOKEN', { GITHUB_TOKEN: `ghp_${'g'.repeat(36)}` }],
    ['HTTPS_PROXY', { HTTPS_PROXY: 'http://ops:proxy-pass-1234@proxy.corp:3128' }],
  ] as const)('refuses to pass %s, a secret, to tools', (name, env) => {
    const error = refusal({ ...env, HOLDFAST_TOOL_ENV: `KUBECONFIG,${name}` });
    expect(error.issues).toEqual([
      expect.stringMatching(
        new RegExp(
          `^HOLDFAST_TOOL_ENV lists ${name}\\b.*Secrets are never passed to tools: remove it from HOLDFAST_TOOL_ENV\\.$`,
        ),
      ),
    ]);
  });

  it('refuses a bot token with neither an app token nor a signing secret', () => {
    expect(refusal({ SLACK_BOT_TOKEN: botToken }).message).toMatch(
      /neither SLACK_APP_TOKEN \(Socket Mode\) nor SLACK_SIGNING_SECRET/,
    );
  });

  it('refuses a signing secret without a bot token', () => {
    expect(refusal({ SLACK_SIGNING_SECRET: signingSecret }).message).toMatch(/SLACK_BOT_TOKEN is missing/);
  });

  it('reports every bad variable at once', () => {
    const error = refusal({
      PORT: 'eighty',
      HOLDFAST_APPROVAL_TTL: 'a while',
      HOLDFAST_APPROVERS: 'U012ABCDEF, alice',
      HOLDFAST_DB_SYNCHRONOUS: 'sometimes',
    });
    const names = error.issues.map((issue) => issue.split(':')[0]);
    expect(names.sort()).toEqual(
      ['HOLDFAST_APPROVAL_TTL', 'HOLDFAST_APPROVERS', 'HOLDFAST_DB_SYNCHRONOUS', 'PORT'].sort(),
    );
  });

  it('parses approvers, durations and the synchronous mode', () => {
    const config = loadConfig(
      {
        HOLDFAST_APPROVERS: 'U012ABCDEF,U0345GHIJK',
        HOLDFAST_APPROVER_GROUPS: 'S0ONCALL01',
        HOLDFAST_APPROVAL_TTL: '4h',
        HOLDFAST_DB_SYNCHRONOUS: 'normal',
        HOLDFAST_ALLOW_SELF_APPROVAL: 'true',
      },
      cwd,
    );
    expect(config.approvers).toEqual({ users: ['U012ABCDEF', 'U0345GHIJK'], groups: ['S0ONCALL01'] });
    expect(config.approvalTtlMs).toBe(4 * 3_600_000);
    expect(config.synchronous).toBe('NORMAL');
    expect(config.allowSelfApproval).toBe(true);
  });

  it('paces Slack calls by the published limits unless HOLDFAST_SLACK_PACING is off', () => {
    expect(loadConfig({}, cwd).slackPacing).toBe(true);
    expect(loadConfig({ HOLDFAST_SLACK_PACING: 'off' }, cwd).slackPacing).toBe(false);
    expect(refusal({ HOLDFAST_SLACK_PACING: 'sometimes' }).issues).toEqual([
      expect.stringMatching(/^HOLDFAST_SLACK_PACING: /),
    ]);
  });

  it('copies requests to up to ten approvers by DM and escalates to nobody unless told', () => {
    expect(loadConfig({}, cwd).reach).toEqual({ maxCopies: 10, escalation: { users: [], groups: [] } });
    const config = loadConfig(
      { HOLDFAST_APPROVER_DMS: '0', HOLDFAST_ESCALATION_GROUP: 'S0LEADS01, U0DUTYMGR' },
      cwd,
    );
    expect(config.reach).toEqual({
      maxCopies: 0,
      escalation: { users: ['U0DUTYMGR'], groups: ['S0LEADS01'] },
    });
  });

  it('names an escalation group that is neither a group id nor a user id', () => {
    const error = refusal({ HOLDFAST_ESCALATION_GROUP: '@oncall-leads' });
    expect(error.issues).toEqual([expect.stringMatching(/^HOLDFAST_ESCALATION_GROUP: expected /)]);
    expect(refusal({ HOLDFAST_APPROVER_DMS: 'many' }).issues).toEqual([
      expect.stringMatching(/^HOLDFAST_APPROVER_DMS: expected a whole number/),
    ]);
  });

  it('caps the tokens a model call may carry, and refuses a cap no model call could work under', () => {
    expect(loadConfig({}, cwd).contextTokensCap).toBeUndefined();
    expect(loadConfig({ HOLDFAST_CONTEXT_TOKENS: '64000' }, cwd).contextTokensCap).toBe(64_000);
    expect(refusal({ HOLDFAST_CONTEXT_TOKENS: '64k' }).message).toContain(
      'HOLDFAST_CONTEXT_TOKENS: expected a whole number of tokens',
    );
    expect(refusal({ HOLDFAST_CONTEXT_TOKENS: '100' }).message).toContain('HOLDFAST_CONTEXT_TOKENS');
  });

  it('reads deploy services as JSON and refuses anything else clearly', () => {
    const config = loadConfig(
      { HOLDFAST_DEPLOY_SERVICES: '{"api": {"command": "./deploy.sh api", "timeoutMs": 600000}}' },
      cwd,
    );
    expect(config.deployServices).toEqual({ api: { command: './deploy.sh api', timeoutMs: 600_000 } });
    expect(refusal({ HOLDFAST_DEPLOY_SERVICES: '{api: ' }).message).toMatch(
      /HOLDFAST_DEPLOY_SERVICES is not valid JSON/,
    );
    expect(refusal({ HOLDFAST_DEPLOY_SERVICES: '{"API!": {"command": ""}}' }).issues.length).toBeGreaterThan(
      0,
    );
  });

  it('reads the hosts http_request may reach at internal addresses, exactly and without wildcards', () => {
    const config = loadConfig({ HOLDFAST_HTTP_INTERNAL_HOSTS: 'grafana.corp:3000, status.corp' }, cwd);
    expect(config.httpInternalHosts).toEqual(['grafana.corp:3000', 'status.corp']);
    expect(loadConfig({}, cwd).httpInternalHosts).toEqual([]);
    expect(refusal({ HOLDFAST_HTTP_INTERNAL_HOSTS: '*.corp' }).message).toContain(
      'HOLDFAST_HTTP_INTERNAL_HOSTS: expected exact host names (no wildcards)',
    );
  });
});
