import { describe, expect, it } from 'vitest';
import { escapeAndTruncate, escapeWithin, markupSafeCut, truncateText } from './truncate-text.js';

describe('truncateText', () => {
  it('returns short text unchanged', () => {
    expect(truncateText('hello', 5)).toBe('hello');
  });

  it('cuts to the limit including the ellipsis', () => {
    expect(truncateText('hello world', 6)).toBe('hello…');
  });

  it('never splits a surrogate pair', () => {
    const out = truncateText('ab😀cd', 4);
    expect(out).toBe('ab…');
  });

  it('never cuts inside an entity or a Slack token', () => {
    expect(truncateText('a &amp; b', 5)).toBe('a …');
    expect(truncateText('see <@U123456> now', 10)).toBe('see …');
  });
});

describe('escapeWithin', () => {
  it('measures the budget after escaping and counts what was left out', () => {
    expect(escapeWithin('<<<<', 9)).toEqual({ text: '&lt;&lt;', omitted: 2 });
  });

  it('keeps everything when it fits', () => {
    expect(escapeWithin('a&b', 7)).toEqual({ text: 'a&amp;b', omitted: 0 });
  });
});

describe('escapeAndTruncate', () => {
  it('escapes and adds an ellipsis when cut', () => {
    expect(escapeAndTruncate('a<b<c<d', 10)).toBe('a&lt;b…');
  });
});

describe('markupSafeCut', () => {
  it('backs off to the start of an unfinished token', () => {
    expect(markupSafeCut('ab <https://x.y|z> c', 8)).toBe(3);
  });
});
