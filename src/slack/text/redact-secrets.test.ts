import { describe, expect, it } from 'vitest';
import { redactSecrets } from './redact-secrets.js';

// Built by concatenation so no complete credential-shaped literal sits in the repository.
const slackBot = ['xoxb', '123456789012', '1234567890123', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-');
const slackUser = ['xoxp', '123456789012', '1234567890123', 'abcdef'].join('-');
const slackApp = ['xapp', '1', 'A0123456789', '1234567890123', 'abcdef0123456789'].join('-');
const slackRefresh = `xoxe.${['xoxp', '1', 'Mi0yLTEyMzQ1Njc4'].join('-')}`;
const webhook = `https://hooks.slack.com/services/${['T00000000', 'B00000000', 'XXXXXXXXXXXXXXXXXXXXXXXX'].join('/')}`;
const openai = `sk-${'a1B2c3D4e5F6g7H8i9J0'.repeat(2)}`;
const openaiProject = `sk-proj-${'Ab1_Cd2-Ef3'.repeat(4)}`;
const aws = `AKIA${'IOSFODNN7EXAMPLE'}`;
const awsSecret = ['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/');
const github = `ghp_${'a1b2c3d4e5f6'.repeat(3)}`;
const githubPat = `github_pat_${'11ABCDEFG0'.repeat(3)}`;
const pem = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn',
  'abc+/=',
  '-----END RSA PRIVATE KEY-----',
].join('\n');

describe('redactSecrets', () => {
  it.each([
    [`token ${slackBot} here`, 'token [redacted slack token] here'],
    [`user ${slackUser}`, 'user [redacted slack token]'],
    [`app ${slackApp}`, 'app [redacted slack token]'],
    [`refresh ${slackRefresh}`, 'refresh [redacted slack token]'],
    [`post to ${webhook} now`, 'post to [redacted slack webhook] now'],
    [`OPENAI_API_KEY=${openai}`, 'OPENAI_API_KEY=[redacted openai key]'],
    [`key ${openaiProject}`, 'key [redacted openai key]'],
    [`id ${aws}`, 'id [redacted aws access key]'],
    [`aws_secret_access_key = ${awsSecret}`, 'aws_secret_access_key = [redacted aws secret key]'],
    [`gh ${github}`, 'gh [redacted github token]'],
    [`gh ${githubPat}`, 'gh [redacted github token]'],
    ['Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc', 'Authorization: Bearer [redacted]'],
    ['Authorization: Basic dXNlcjpwYXNz', 'Authorization: Basic [redacted]'],
    ['curl -H "Bearer abcdef0123456789"', 'curl -H "Bearer [redacted]"'],
    [`key:\n${pem}\nend`, 'key:\n[redacted private key]\nend'],
    [`${pem.split('\n').slice(0, 2).join('\n')}`, '[redacted private key]'],
  ])('redacts %j', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it.each([
    'Tokens start with xoxb- and are kept secret.',
    'Bearer authentication is configured per route.',
    'Use sk-learn for that, or the task-runner.',
    'AKIA is the prefix of AWS access key ids.',
    'See https://hooks.slack.com/ for incoming webhooks.',
    'ghp_ tokens are personal access tokens.',
    'A perfectly ordinary sentence with numbers 12345 and a-b-c.',
    '```\n{"command": "df -h"}\n```',
  ])('leaves ordinary text unchanged: %j', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });

  it('is idempotent', () => {
    const once = redactSecrets(`a ${slackBot} b Authorization: Bearer abcdef0123456789 ${pem}`);
    expect(redactSecrets(once)).toBe(once);
  });

  it('handles a 100 KB input', () => {
    const big = `${'word '.repeat(20_000)}${slackBot}`;
    expect(redactSecrets(big).endsWith('[redacted slack token]')).toBe(true);
  });
});
