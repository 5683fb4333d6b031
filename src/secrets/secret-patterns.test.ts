import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SECRET_PATTERNS } from './secret-patterns.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const run = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...`${ALNUM}_-/+`), minLength: min, maxLength: max });

/** Any casing of a word: the keywords are lowercase, the patterns often are not. */
const anyCase = (word: string) =>
  fc
    .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
    .map((upper) => [...word].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join(''));

/** Texts fast-check can build from a pattern itself (it cannot for look-behinds nor the `i` flag). */
const shapes = SECRET_PATTERNS.flatMap((rule) => {
  try {
    return [fc.stringMatching(rule.pattern)];
  } catch {
    return [];
  }
});

/** Pieces of the patterns fast-check cannot build from, so that random texts also hold their matches. */
const pieces = fc.oneof(
  fc.constantFrom(...SECRET_PATTERNS.flatMap((rule) => rule.keywords)).chain(anyCase),
  fc.constantFrom(
    'AKIA',
    'aws_secret_access_key = ',
    '"SessionToken": "',
    'postgres://svc:',
    '@',
    '?password=',
    '&sig=',
    '//registry.npmjs.org/:_authToken=',
    ' sk-',
    'Authorization: Bearer ',
    'x-api-key: ',
    ' Bearer 1',
    'GITHUB_TOKEN=',
    '"password": "',
    '-----BEGIN RSA PRIVATE KEY-----\n',
    '\n',
    '"',
    ' ',
  ),
  fc
    .tuple(
      fc.constantFrom(' AKIA', ' ASIA', ' A3TX'),
      fc.string({
        unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
        minLength: 16,
        maxLength: 24,
      }),
    )
    .map(([prefix, body]) => prefix + body),
  run(1, 12),
  run(20, 60),
  ...shapes,
);

describe('the keywords that decide whether a pattern runs', () => {
  it('are lowercase and never empty', () => {
    for (const rule of SECRET_PATTERNS) {
      expect(rule.keywords.length, rule.kind).toBeGreaterThan(0);
      for (const keyword of rule.keywords) expect(keyword, rule.kind).toBe(keyword.toLowerCase());
      for (const keyword of rule.keywords) expect(keyword, rule.kind).not.toBe('');
    }
  });

  it('are in every match a pattern accepts, whatever its casing', () => {
    const matched = new Set<number>();
    fc.assert(
      fc.property(fc.array(pieces, { minLength: 1, maxLength: 16 }), (parts) => {
        const text = parts.join('');
        SECRET_PATTERNS.forEach((rule, index) => {
          for (const match of text.matchAll(rule.pattern)) {
            if (match[0] === '' || (rule.accept && !rule.accept(match))) continue;
            matched.add(index);
            const found = match[0].toLowerCase();
            expect(
              rule.keywords.some((keyword) => found.includes(keyword)),
              `${rule.kind}: ${match[0]}`,
            ).toBe(true);
          }
        });
      }),
      { numRuns: 4_000, seed: 1_204 },
    );
    // Each pattern must have been exercised, or the property above proves nothing about it.
    const unmatched = SECRET_PATTERNS.filter((_, index) => !matched.has(index)).map((rule) => rule.kind);
    expect(unmatched).toEqual([]);
  });
});
