import { describe, expect, it } from 'vitest';
import { createRedactor, redactKnownPatterns } from './create-redactor.js';

// Built by concatenation so no complete credential-shaped literal sits in the repository.
const join = (...parts: string[]) => parts.join('');
const alnum = (length: number, seed = 7) =>
  Array.from({ length }, (_, index) => 'aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z'[(index * seed + 3) % 31]).join('');

const slackBot = ['xoxb', '123456789012', '1234567890123', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-');
const jwt = join(
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
  '.',
  'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ',
  '.',
  'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
);
const pgpKey = [
  '-----BEGIN PGP PRIVATE KEY BLOCK-----',
  '',
  'lQOYBGRk3hEBCADdX1Yh7c2Ag0mGgX9H',
  '=Kx1p',
  '-----END PGP PRIVATE KEY BLOCK-----',
].join('\n');
const opensshKey = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');
const ecKey = ['-----BEGIN EC PRIVATE KEY-----', 'MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5', ''].join('\n');
const awsSecret = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/');
const sessionToken = join('FwoGZXIvYXdzEBYaDH', alnum(60), '/Jz8=');

describe('redactKnownPatterns', () => {
  it.each([
    ['a JWT', `token=${jwt} ok`, 'token=[redacted jwt] ok'],
    ['an xoxc client token', `c ${join('xoxc-', '1234567890-', alnum(40))}`, 'c [redacted slack token]'],
    [
      'an xoxs legacy token',
      `s ${join('xoxs-', '3206092076-3204538285-', '836b042620')}`,
      's [redacted slack token]',
    ],
    ['an xoxe refresh token', `r ${join('xoxe-1-', alnum(60))}`, 'r [redacted slack token]'],
    ['an xoxe config token', `r ${join('xoxe.xoxp-1-', alnum(60))}`, 'r [redacted slack token]'],
    ['an xoxd cookie', `d=${join('xoxd-', 'aB%2FcD%2B', alnum(30))}`, 'd=[redacted slack token]'],
    [
      'an xapp token',
      `a ${['xapp', '1', 'A0123456789', '1234567890123', alnum(20)].join('-')}`,
      'a [redacted slack token]',
    ],
    ['a token glued to an underscore', `SLACK_${slackBot}`, 'SLACK_[redacted slack token]'],
    [
      'a Slack webhook',
      `curl ${join('https://hooks.slack.com/', 'services/T00000000/B00000000/', alnum(24))} -d x`,
      'curl [redacted slack webhook] -d x',
    ],
    ['a PGP private key block', `k\n${pgpKey}\nafter`, 'k\n[redacted private key]\nafter'],
    ['an OpenSSH private key', `${opensshKey} done`, '[redacted private key] done'],
    ['a truncated EC key', `${ecKey}next line!`, '[redacted private key]\nnext line!'],
    [
      'STS JSON credentials',
      `{"Credentials": {"AccessKeyId": "${join('ASIA', 'IOSFODNN7EXAMPLE')}", "SecretAccessKey": "${awsSecret}", "SessionToken": "${sessionToken}"}}`,
      '{"Credentials": {"AccessKeyId": "[redacted aws access key]", "SecretAccessKey": "[redacted aws secret key]", "SessionToken": "[redacted aws session token]"}}',
    ],
    [
      'an AWS env secret',
      `AWS_SECRET_ACCESS_KEY=${awsSecret}`,
      'AWS_SECRET_ACCESS_KEY=[redacted aws secret key]',
    ],
    [
      'a postgres URL',
      `postgres://app:${alnum(14)}@db.internal:5432/app`,
      'postgres://app:[redacted password]@db.internal:5432/app',
    ],
    [
      'a mysql URL',
      `mysql://root:${alnum(10)}@10.0.0.5/shop`,
      'mysql://root:[redacted password]@10.0.0.5/shop',
    ],
    [
      'a mongodb+srv URL',
      `mongodb+srv://svc:${alnum(12)}@cluster0.abcde.mongodb.net/db`,
      'mongodb+srv://svc:[redacted password]@cluster0.abcde.mongodb.net/db',
    ],
    [
      'a redis URL with no user',
      `redis://:${alnum(16)}@cache:6379`,
      'redis://:[redacted password]@cache:6379',
    ],
    ['an amqp URL', `amqps://mq:${alnum(12)}@rabbit/vhost`, 'amqps://mq:[redacted password]@rabbit/vhost'],
    [
      'an npm token',
      `//registry.npmjs.org/:_authToken=${join('npm_', alnum(36))}`,
      '//registry.npmjs.org/:_authToken=[redacted npm token]',
    ],
    ['a bare npm token', `t ${join('npm_', alnum(36))}`, 't [redacted npm token]'],
    ['a Stripe live secret key', `k ${join('sk_live_', alnum(24))}`, 'k [redacted stripe key]'],
    ['a Stripe test secret key', `k ${join('sk_test_', alnum(24))}`, 'k [redacted stripe key]'],
    ['a Stripe restricted key', `k ${join('rk_live_', alnum(24))}`, 'k [redacted stripe key]'],
    ['a GCP API key', `key: ${join('AIza', 'Sy', alnum(33))}`, 'key: [redacted gcp api key]'],
    [
      'a service-account private_key',
      `{"type": "service_account", "private_key": "${join('-----BEGIN PRIVATE KEY-----', '\\n', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', '\\n', '-----END PRIVATE KEY-----', '\\n')}"}`,
      '{"type": "service_account", "private_key": "[redacted private key]"}',
    ],
    ['a classic GitHub token', `gh ${join('ghp_', alnum(36))}`, 'gh [redacted github token]'],
    ['a GitHub OAuth token', `gh ${join('gho_', alnum(36))}`, 'gh [redacted github token]'],
    ['a GitHub user-to-server token', `gh ${join('ghu_', alnum(36))}`, 'gh [redacted github token]'],
    ['a GitHub server-to-server token', `gh ${join('ghs_', alnum(36))}`, 'gh [redacted github token]'],
    ['a GitHub refresh token', `gh ${join('ghr_', alnum(36))}`, 'gh [redacted github token]'],
    [
      'a fine-grained GitHub token',
      `gh ${join('github_pat_', '11ABCDEFG0', alnum(70))}`,
      'gh [redacted github token]',
    ],
    ['an OpenAI key', `OPENAI=${join('sk-proj-', alnum(40))}`, 'OPENAI=[redacted openai key]'],
    ['an Anthropic key', `k ${join('sk-ant-api03-', alnum(40))}`, 'k [redacted anthropic key]'],
    ['a bearer header', `Authorization: Bearer ${alnum(32)}`, 'Authorization: Bearer [redacted credential]'],
    ['a basic header', 'Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic [redacted credential]'],
    ['a curl bearer header', `curl -H "Bearer ${alnum(20)}"`, 'curl -H "Bearer [redacted credential]"'],
    [
      'a secret in an env dump',
      `HOME=/root\0DB_PASSWORD=${alnum(12)}\0`,
      'HOME=/root\0DB_PASSWORD=[redacted secret]\0',
    ],
    ['a quoted password in JSON', `{"password": "${alnum(12)}"}`, '{"password": "[redacted secret]"}'],
    [
      'a signature in a pre-signed URL',
      `https://b.s3.amazonaws.com/k?X-Amz-Signature=${alnum(64)}&x=1`,
      'https://b.s3.amazonaws.com/k?X-Amz-Signature=[redacted credential]&x=1',
    ],
  ])('redacts %s', (_kind, input, expected) => {
    expect(redactKnownPatterns(input)).toBe(expected);
  });

  it('finds a token split by zero-width and bidi characters, and removes them with it', () => {
    const split = `${slackBot.slice(0, 4)}\u200B${slackBot.slice(4, 10)}\u2060\u202E${slackBot.slice(10)}`;
    expect(redactKnownPatterns(`token \u200D${split} end`)).toBe('token \u200D[redacted slack token] end');
  });

  it.each([
    'Tokens start with xoxb- and are kept secret.',
    'Bearer authentication is configured per route; the Authorization: Bearer header carries it.',
    'Use sk-learn for that, or the task-runner.',
    'AKIA is the prefix of AWS access key ids.',
    'See https://hooks.slack.com/ for incoming webhooks.',
    'ghp_ tokens are personal access tokens.',
    'A perfectly ordinary sentence with numbers 12345 and a-b-c.',
    '```\n{"command": "df -h"}\n```',
    'commit 9fceb02d0ae598e95dc970b74767f19372d61af8 (HEAD -> main)',
    'request 3f2b9c1e-8d4a-4e6b-9f0a-1c2d3e4f5a6b failed',
    'const password = z.string().min(8); const apiKey = env.API_KEY;',
    'psql postgres://app:$PGPASSWORD@db/app',
    'PWD=/home/deploy/app\0SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.1234\0',
    'https://example.com:8443/path?q=1',
    'git@github.com:acme/holdfast.git',
  ])('leaves ordinary text unchanged: %j', (text) => {
    expect(redactKnownPatterns(text)).toBe(text);
  });

  it('is idempotent', () => {
    const once = redactKnownPatterns(
      `a ${slackBot} b Authorization: Bearer ${alnum(20)} ${pgpKey} postgres://u:${alnum(12)}@h ${jwt}`,
    );
    expect(redactKnownPatterns(once)).toBe(once);
  });

  // A quadratic pattern would take minutes here and hit the test timeout; linear ones take milliseconds.
  it('handles a 200 KB input made to make patterns backtrack', () => {
    const hostile = [
      'word '.repeat(20_000),
      '-----BEGIN RSA PRIVATE KEY-----'.repeat(2_000),
      'A'.repeat(30_000),
      'Authorization: '.repeat(2_000),
      `${slackBot}`,
    ].join('');
    expect(redactKnownPatterns(hostile).endsWith('[redacted slack token]')).toBe(true);
  });
});

describe('createRedactor', () => {
  const signingSecret = 'f3a9c2e17b4d8e6a0c5b9d2e4f7a1c3e';
  const password = 'p&ss<w>rd "quoted" ünïcode';
  const redactor = createRedactor({
    secrets: [
      { name: 'slack signing secret', value: signingSecret },
      { name: 'database password', value: password },
      { name: 'short', value: 'abc' },
    ],
  });

  it.each([
    ['as is', signingSecret],
    ['in upper-case hex', Buffer.from(signingSecret).toString('hex').toUpperCase()],
    ['in hex', Buffer.from(signingSecret).toString('hex')],
    ['in base64', Buffer.from(signingSecret).toString('base64')],
    ['in base64url', Buffer.from(signingSecret).toString('base64url')],
    ['URL-encoded', encodeURIComponent(password)],
    ['JSON-escaped', JSON.stringify(password).slice(1, -1)],
    ['escaped for Slack', password.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')],
  ])('redacts a configured value %s', (_how, spelling) => {
    const out = redactor.redact(`value: ${spelling} (end)`);
    expect(out).toMatch(/^value: \[redacted (slack signing secret|database password)\]/);
    expect(out).not.toContain(spelling);
  });

  it.each([0, 1, 2])('redacts a value base64-encoded after %i other bytes', (lead) => {
    const blob = Buffer.from(`${'x'.repeat(lead)}user:${signingSecret}:tail`).toString('base64');
    const out = redactor.redact(`Authorization: Other ${blob}`);
    expect(out).toContain('[redacted slack signing secret]');
    // Only the groups that mix the value with its neighbours survive, at most three characters a side.
    const kept = out.replace('Authorization: Other ', '').replace('[redacted slack signing secret]', '');
    expect(blob.length - kept.length).toBeGreaterThanOrEqual(Math.floor((signingSecret.length * 4) / 3) - 8);
  });

  it('redacts a configured value split by invisible characters', () => {
    const split = `${signingSecret.slice(0, 10)}\u200B\u00AD${signingSecret.slice(10)}`;
    expect(redactor.redact(`secret=${split}`)).toBe('secret=[redacted slack signing secret]');
  });

  it('does not search for values shorter than the minimum', () => {
    expect(redactor.redact('abc is the alphabet')).toBe('abc is the alphabet');
  });

  it('never makes text longer when asked to be compact, for payloads already cut to a size limit', () => {
    const { redact } = createRedactor({
      secrets: [
        { name: 'database password', value: 'hunter2-x' },
        { name: 'slack signing secret', value: signingSecret },
      ],
    });
    const text = `pw hunter2-x and ${signingSecret}; Authorization: Basic dXNlcjpwYXNz`;
    const compact = redact(text, { compact: true });
    expect(compact).toBe('pw [secret] and [redacted slack signing secret]; Authorization: Basic [redacted]');
    expect(compact.length).toBeLessThanOrEqual(text.length);
    expect(redact(text)).toBe(
      'pw [redacted database password] and [redacted slack signing secret]; Authorization: Basic [redacted credential]',
    );
  });

  it('names the kind and never the value', () => {
    expect(redactor.redact(`x ${signingSecret} y`)).toBe('x [redacted slack signing secret] y');
  });
});
