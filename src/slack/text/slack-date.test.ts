import { describe, expect, it } from 'vitest';
import { fallbackTime, formatSlackDate } from './slack-date.js';

const at = Date.UTC(2024, 4, 1, 14, 30, 15, 500);

describe('formatSlackDate', () => {
  it('uses whole unix seconds, the default tokens and an ISO fallback', () => {
    expect(formatSlackDate(at)).toBe('<!date^1714573815^{date_short_pretty} at {time}|2024-05-01T14:30:15Z>');
  });

  it('writes the fallback in the given zone', () => {
    expect(formatSlackDate(at, { timeZone: 'Europe/Berlin', format: '{time}' })).toBe(
      '<!date^1714573815^{time}|2024-05-01 16:30 Europe/Berlin>',
    );
  });

  it('falls back to UTC for an unknown zone', () => {
    expect(fallbackTime(at, 'Not/AZone')).toBe('2024-05-01T14:30:15Z');
  });

  it('does not emit a broken token for an invalid time', () => {
    expect(formatSlackDate(Number.NaN)).toBe('an unknown time');
  });
});
