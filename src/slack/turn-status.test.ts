import { describe, expect, it } from 'vitest';
import { assistantStatusText, completedEnding, statusLegend, statusReactions } from './turn-status.js';

describe('completedEnding', () => {
  it.each([
    { decisions: [], interruptedCalls: 0, ending: 'done' },
    { decisions: ['allowed', 'allowed'], interruptedCalls: 0, ending: 'done' },
    { decisions: ['allowed', 'denied'], interruptedCalls: 0, ending: 'denied' },
    { decisions: ['denied', 'expired'], interruptedCalls: 0, ending: 'expired' },
    { decisions: ['allowed'], interruptedCalls: 1, ending: 'interrupted' },
    { decisions: [], interruptedCalls: 0, refusedCalls: 1, ending: 'denied' },
    { decisions: ['expired'], interruptedCalls: 1, ending: 'interrupted' },
  ] as const)('reads $decisions with $interruptedCalls interrupted calls as $ending', (row) => {
    const refusedCalls = 'refusedCalls' in row ? row.refusedCalls : 0;
    expect(
      completedEnding({ decisions: row.decisions, interruptedCalls: row.interruptedCalls, refusedCalls }),
    ).toBe(row.ending);
  });
});

describe('statusReactions', () => {
  it('gives every state its own reaction, and the tick only to done', () => {
    const names = Object.values(statusReactions);
    expect(new Set(names).size).toBe(names.length);
    expect(
      Object.entries(statusReactions)
        .filter(([, name]) => name === 'white_check_mark')
        .map(([state]) => state),
    ).toEqual(['done']);
  });

  it('has a legend line for every state', () => {
    expect(statusLegend.map((entry) => entry.status).sort()).toEqual(Object.keys(statusReactions).sort());
  });
});

describe('assistantStatusText', () => {
  it('shows working and waiting, and clears the line at every ending', () => {
    expect(assistantStatusText('awaiting')).toBe('is waiting for an approval…');
    for (const ending of ['done', 'denied', 'expired', 'failed', 'interrupted'] as const)
      expect(assistantStatusText(ending)).toBe('');
  });
});
