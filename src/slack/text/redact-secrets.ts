interface SecretPattern {
  readonly pattern: RegExp;
  readonly replacement: string;
}

// Order matters: PEM blocks and webhook URLs go first so their insides are not half-matched by the
// narrower token rules below. Every pattern is linear (no nested quantifiers) because it runs on every
// message, including 100 KB tool outputs.
const PATTERNS: readonly SecretPattern[] = [
  {
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g,
    replacement: '[redacted private key]',
  },
  {
    // A key cut off before its END line (truncated output) is still a key.
    pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:\r?\n[A-Za-z0-9+/=:, -]{1,200})*/g,
    replacement: '[redacted private key]',
  },
  {
    pattern: /https:\/\/hooks\.slack(?:-gov)?\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]+/g,
    replacement: '[redacted slack webhook]',
  },
  {
    pattern: /\b(?:xox[abeoprs]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{8,}/g,
    replacement: '[redacted slack token]',
  },
  { pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, replacement: '[redacted openai key]' },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replacement: '[redacted aws access key]' },
  {
    pattern: /\b(aws_secret_access_key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
    replacement: '$1[redacted aws secret key]',
  },
  { pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,}\b/g, replacement: '[redacted github token]' },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, replacement: '[redacted github token]' },
  {
    pattern: /(\bAuthorization["']?\s*[:=]\s*["']?(?:Bearer|Basic|Token))[ \t]+[A-Za-z0-9\-._~+/]{4,}=*/gi,
    replacement: '$1 [redacted]',
  },
  {
    // Outside a header, demand a digit so prose such as "Bearer authentication" is left alone.
    pattern: /\b(Bearer)[ \t]+(?=[A-Za-z0-9\-._~+/]*\d)[A-Za-z0-9\-._~+/]{12,}=*/g,
    replacement: '$1 [redacted]',
  },
];

/**
 * Replaces things that look like credentials (Slack tokens and webhooks, OpenAI, AWS and GitHub keys,
 * `Bearer` / `Basic` credentials, PEM private keys) with a label naming what was removed. Applied to
 * everything holdfast posts: a model or tool that echoes a secret must not publish it to a channel.
 * Idempotent, and ordinary text passes through unchanged.
 */
export function redactSecrets(text: string): string {
  let out = text;
  for (const { pattern, replacement } of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
