import { describe, expect, it } from 'vitest';
import { assistantLineOf } from './slack-thread-status.js';

describe('assistantLineOf', () => {
  it('shows working and waiting, and clears the line at every ending', () => {
    expect(assistantLineOf('processing')).toBe('is working on it…');
    expect(assistantLineOf('suspended')).toBe('is waiting for an approval…');
    for (const ending of ['active', 'closed'] as const) expect(assistantLineOf(ending)).toBe('');
  });
});
