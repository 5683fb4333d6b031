import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test/support/temp-dir.js';
import { type Config, loadConfig } from './config.js';
import { ConfigError } from './errors.js';

const cwd = '/srv/holdfast';
const botToken = `xoxb-${'1'.repeat(12)}-${'2'.repeat(13)}-filetokenvalue`;
const appToken = `xapp-1-${'A'.repeat(10)}-${'3'.repeat(13)}-appfilevalue`;
const signingSecret = 'c0ffee'.repeat(6);
const openaiKey = `sk-proj-${'k'.repeat(40)}`;

/** A file system of exactly these files, for `readFile`; any other path fails the way Node's does. */
function files(contents: Record<string, string>) {
  const read: string[] = [];
  const readFile = (file: string) => {
    read.push(file);
    const content = contents[file];
    if (content === undefined) {
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), { code: 'ENOENT' });
    }
    return content;
  };
  return { readFile, read };
}

function refusal(env: Record<string, string>, readFile = files({}).readFile): ConfigError {
  try {
    loadConfig(env, cwd, { readFile });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected the configuration to be refused');
}

describe('loadConfig with *_FILE variables', () => {
  it.each([
    ['SLACK_BOT_TOKEN', botToken, (config: Config) => config.slack.type !== 'local' && config.slack.botToken],
    [
      'SLACK_APP_TOKEN',
      appToken,
      (config: Config) => config.slack.type === 'socket' && config.slack.appToken,
    ],
    [
      'SLACK_SIGNING_SECRET',
      signingSecret,
      (config: Config) => config.slack.type === 'http' && config.slack.signingSecret,
    ],
    ['OPENAI_API_KEY', openaiKey, (config: Config) => config.model.type === 'openai' && config.model.apiKey],
    ['HOLDFAST_SQL_URL', 'data/team.db', (config: Config) => config.sqlUrl],
    ['HOLDFAST_METRICS_TOKEN', 'scrape-4f1c9a7e2b6d', (config: Config) => config.metricsToken],
  ])('reads %s from the file %s_FILE names, without its trailing newline', (name, value, read) => {
    const base: Record<string, string> =
      name === 'SLACK_APP_TOKEN'
        ? { SLACK_BOT_TOKEN: botToken }
        : name === 'SLACK_SIGNING_SECRET'
          ? { SLACK_BOT_TOKEN: botToken }
          : name === 'SLACK_BOT_TOKEN'
            ? { SLACK_SIGNING_SECRET: signingSecret }
            : {};
    const { readFile, read: opened } = files({ '/run/secrets/value': `${value}\n` });
    const config = loadConfig({ ...base, [`${name}_FILE`]: '/run/secrets/value' }, cwd, { readFile });
    expect(read(config)).toBe(value);
    expect(opened).toEqual(['/run/secrets/value']);
  });

  it('resolves a relative path against the working directory', () => {
    const { readFile, read } = files({ '/srv/holdfast/secrets/openai': openaiKey });
    loadConfig({ OPENAI_API_KEY_FILE: 'secrets/openai' }, cwd, { readFile });
    expect(read).toEqual(['/srv/holdfast/secrets/openai']);
  });

  it('reads a real file by default', () => {
    const dir = tempDir('holdfast-config-');
    writeFileSync(dir.file('key'), `${openaiKey}\r\n`);
    const config = loadConfig({ OPENAI_API_KEY_FILE: dir.file('key') }, cwd);
    expect(config.model).toMatchObject({ type: 'openai', apiKey: openaiKey });
  });

  it('refuses a variable set both directly and as a file, naming both', () => {
    const error = refusal({ OPENAI_API_KEY: openaiKey, OPENAI_API_KEY_FILE: '/run/secrets/openai' });
    expect(error.issues).toEqual([
      'OPENAI_API_KEY and OPENAI_API_KEY_FILE are both set; set only one of them.',
    ]);
  });

  it('refuses a file it cannot read, naming the variable and the path', () => {
    const error = refusal({ SLACK_SIGNING_SECRET_FILE: '/run/secrets/missing', SLACK_BOT_TOKEN: botToken });
    expect(error.issues).toEqual(['SLACK_SIGNING_SECRET_FILE: cannot read /run/secrets/missing (ENOENT).']);
  });

  it('refuses an empty file', () => {
    const { readFile } = files({ '/run/secrets/empty': '\n' });
    expect(refusal({ SLACK_BOT_TOKEN_FILE: '/run/secrets/empty' }, readFile).issues).toEqual([
      'SLACK_BOT_TOKEN_FILE: /run/secrets/empty is empty.',
    ]);
  });

  it('says a malformed value came from its file, and never echoes it', () => {
    const { readFile } = files({ '/run/secrets/signing': 'not-hex-at-all-but-secret\n' });
    const error = refusal(
      { SLACK_BOT_TOKEN: botToken, SLACK_SIGNING_SECRET_FILE: '/run/secrets/signing' },
      readFile,
    );
    expect(error.issues[0]).toMatch(
      /^SLACK_SIGNING_SECRET \(read from SLACK_SIGNING_SECRET_FILE\): expected the hex signing secret/,
    );
    expect(error.message).not.toContain('not-hex-at-all-but-secret');
  });
});

describe('the secrets a configuration knows of', () => {
  const configured = () =>
    loadConfig(
      {
        PATH: '/usr/bin:/bin',
        HOME: '/home/holdfast',
        SLACK_BOT_TOKEN: botToken,
        SLACK_SIGNING_SECRET_FILE: '/run/secrets/signing',
        OPENAI_API_KEY: openaiKey,
        HOLDFAST_SQL_URL: 'data/team.db',
        DATABASE_URL: 'postgres://app:s3cr%40t-pass@db.internal/app',
        GITHUB_TOKEN: `ghp_${'g'.repeat(36)}`,
        SHORT_TOKEN: 'abc',
        PWD: '/srv/holdfast',
        GREETING: `hello ${signingSecret}`,
      },
      cwd,
      { readFile: files({ '/run/secrets/signing': signingSecret }).readFile },
    );

  it('lists every configured secret, values from files included, named by kind', () => {
    const config = configured();
    expect(config.secrets).toEqual(
      expect.arrayContaining([
        { name: 'slack bot token', value: botToken },
        { name: 'slack signing secret', value: signingSecret },
        { name: 'openai key', value: openaiKey },
        { name: 'DATABASE_URL password', value: 's3cr%40t-pass' },
        { name: 'DATABASE_URL password', value: 's3cr@t-pass' },
        { name: 'GITHUB_TOKEN', value: `ghp_${'g'.repeat(36)}` },
      ]),
    );
    // Too short to search for, and a file's path is not its content.
    expect(config.secrets.map((secret) => secret.value)).not.toContain('abc');
    expect(config.secrets.map((secret) => secret.value)).not.toContain('/run/secrets/signing');
  });

  it('gives tools an environment without any secret, any *_FILE path, or any value holding a secret', () => {
    expect(configured().toolEnv).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/holdfast',
      HOLDFAST_SQL_URL: 'data/team.db',
      PWD: '/srv/holdfast',
    });
  });
});
