import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, redactKnownPatterns } from './create-redactor.js';

const INVISIBLES = ['\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD', '\u200E', '\u202E', '\u2066'];
const visible = (text: string) => text.replace(/[\u00AD\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/g, '');

const chars = (alphabet: string, min: number, max = min) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: min, maxLength: max });
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DIGITS = '0123456789';
const B64URL = `${ALNUM}_-`;

/** Each secret with the part that must never survive (its random body, not its well-known prefix). */
const secrets: fc.Arbitrary<{ secret: string; body: string }> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('xoxb', 'xoxp', 'xoxa', 'xoxc', 'xoxs', 'xoxe', 'xoxr', 'xoxo'),
      chars(DIGITS, 10, 13),
      chars(ALNUM, 24, 32),
    )
    .map(([prefix, team, body]) => ({ secret: `${prefix}-${team}-${body}`, body })),
  chars(ALNUM, 20, 64).map((body) => ({ secret: `xapp-1-A0123456789-1234567890-${body}`, body })),
  fc
    .tuple(chars(B64URL, 20, 40), chars(B64URL, 20, 60), chars(B64URL, 20, 43))
    .map(([a, b, c]) => ({ secret: `eyJ${a}.eyJ${b}.${c}`, body: `${b}.${c}` })),
  fc
    .tuple(fc.constantFrom('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'), chars(ALNUM, 36))
    .map(([prefix, body]) => ({ secret: prefix + body, body })),
  chars(`${ALNUM}_`, 60, 82).map((body) => ({ secret: `github_pat_${body}`, body })),
  chars(ALNUM, 36).map((body) => ({ secret: `npm_${body}`, body })),
  fc
    .tuple(fc.constantFrom('sk_live_', 'sk_test_', 'rk_live_', 'rk_test_'), chars(ALNUM, 24, 99))
    .map(([prefix, body]) => ({ secret: prefix + body, body })),
  chars(B64URL, 35).map((body) => ({ secret: `AIza${body}`, body })),
  chars(B64URL, 40, 120).map((body) => ({ secret: `sk-proj-${body}`, body })),
  fc
    .tuple(fc.constantFrom('AKIA', 'ASIA'), chars(UPPER_DIGITS, 16))
    .map(([prefix, body]) => ({ secret: prefix + body, body })),
  chars(`${ALNUM}/+`, 40).map((body) => ({ secret: `"SecretAccessKey": "${body}"`, body })),
  fc
    .tuple(
      fc.constantFrom('postgres', 'postgresql', 'mysql', 'mongodb+srv', 'redis', 'amqp'),
      chars(ALNUM, 12, 30),
    )
    .map(([scheme, body]) => ({ secret: `${scheme}://svc:${body}@db.internal:5432/app`, body })),
  chars(`${ALNUM}+/`, 64, 64).map((body) => ({
    secret: `-----BEGIN RSA PRIVATE KEY-----\n${body}\n${body}\n-----END RSA PRIVATE KEY-----`,
    body,
  })),
  chars(`${ALNUM}._-`, 20, 60).map((body) => ({ secret: `Authorization: Bearer 1${body}`, body })),
);

/** Ordinary text: words, code, numbers, hashes, ids. */
const filler = fc
  .array(
    fc.oneof(
      fc.constantFrom('the', 'disk', 'is', 'full', 'ok', 'deploy', 'api', 'token', 'key', 'password', '='),
      fc.constantFrom('const x = 1;', '{"ok": true}', 'df -h', '```', '$PATH', 'a-b-c', '\n', '\t'),
      chars('0123456789abcdef', 40),
      fc.uuid(),
      fc.string({ maxLength: 12 }),
    ),
    { maxLength: 30 },
  )
  .map((words) => words.join(' '));

/** Inserts invisible characters at random places. */
const sprinkle = (text: string, positions: readonly number[], marks: readonly string[]) => {
  let out = text;
  positions.forEach((position, index) => {
    const at = position % (out.length + 1);
    out = out.slice(0, at) + marks[index % marks.length] + out.slice(at);
  });
  return out;
};

describe('redaction, for any text', () => {
  it('never lets a known kind of secret through, wherever it sits and however it is split', () => {
    fc.assert(
      fc.property(
        filler,
        secrets,
        filler,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.constantFrom(...INVISIBLES), { minLength: 1, maxLength: 6 }),
        fc.constantFrom(' ', '\n', '"', "'", '=', ': ', '(', '\0'),
        (before, { secret, body }, after, positions, marks, separator) => {
          const split = sprinkle(secret, positions, marks);
          const out = visible(redactKnownPatterns(`${before}${separator}${split}${separator}${after}`));
          expect(out).not.toContain(body);
          const glued = visible(redactKnownPatterns(`${before}${separator}${marks[0]}${split}${after}`));
          expect(glued).not.toContain(body);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('never lets a configured value through, in any common encoding', () => {
    fc.assert(
      fc.property(
        fc
          .string({ minLength: 12, maxLength: 48 })
          .filter((value) => value.trim() === value && /\S{4}/.test(value)),
        filler,
        filler,
        fc.constantFrom<(value: string) => string>(
          (value) => value,
          (value) => Buffer.from(value).toString('base64'),
          (value) => Buffer.from(value).toString('base64url'),
          (value) => Buffer.from(value).toString('hex'),
          (value) => encodeURIComponent(value),
          (value) => JSON.stringify(value).slice(1, -1),
        ),
        fc.array(fc.nat(), { maxLength: 4 }),
        (value, before, after, encode, positions) => {
          const { redact } = createRedactor({ secrets: [{ name: 'slack signing secret', value }] });
          const spelling = encode(value);
          const out = visible(redact(`${before} ${sprinkle(spelling, positions, INVISIBLES)} ${after}`));
          expect(out).not.toContain(spelling);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves ordinary text, commit hashes and uuids exactly as they were', () => {
    const { redact } = createRedactor({
      secrets: [{ name: 'slack signing secret', value: 'f3a9c2e17b4d8e6a0c5b9d2e4f7a1c3e' }],
    });
    fc.assert(
      fc.property(filler, (text) => {
        expect(redactKnownPatterns(text)).toBe(text);
        expect(redact(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(filler, secrets, filler, (before, { secret }, after) => {
        const once = redactKnownPatterns(`${before} ${secret} ${after}`);
        expect(redactKnownPatterns(once)).toBe(once);
      }),
      { numRuns: 200 },
    );
  });
});
