import { describe, expect, it } from 'vitest';
import { completedEnding, statusLegend, statusReactions } from './turn-status.js';

describe('completedEnding', () => {
  const ran = { type: 'succeeded' } as const;
  const exit2 = { type: 'failed', exitCode: 2 } as const;
  it.each([
    { name: 'nothing asked', decisions: [], outcomes: [], ending: 'done' },
    {
      name: 'two allowed calls that ran',
      decisions: ['allowed', 'allowed'],
      outcomes: [ran, ran],
      ending: 'done',
    },
    { name: 'a call that exited 2', decisions: [], outcomes: [ran, exit2], ending: 'failed-calls' },
    {
      name: 'a call Stop killed',
      decisions: [],
      outcomes: [{ type: 'stopped', by: 'U0BOB' }],
      ending: 'failed-calls',
    },
    {
      name: 'a call the tool refused',
      decisions: [],
      outcomes: [{ type: 'refused', by: 'tool' }],
      ending: 'failed-calls',
    },
    {
      name: 'a call named wrongly, then right',
      decisions: [],
      outcomes: [{ type: 'refused', by: 'invalid-call' }, ran],
      ending: 'done',
    },
    { name: 'a denied request', decisions: ['allowed', 'denied'], outcomes: [exit2], ending: 'denied' },
    { name: 'a denied call', decisions: [], outcomes: [{ type: 'denied', by: 'U0BOB' }], ending: 'denied' },
    { name: 'a deny rule', decisions: [], outcomes: [{ type: 'refused', by: 'policy' }], ending: 'denied' },
    { name: 'an expired request', decisions: ['denied', 'expired'], outcomes: [], ending: 'expired' },
    {
      name: 'an interrupted call',
      decisions: ['expired'],
      outcomes: [{ type: 'interrupted' }],
      ending: 'interrupted',
    },
  ] as const)('reads $name as $ending', (row) => {
    expect(completedEnding({ decisions: row.decisions, outcomes: row.outcomes })).toBe(row.ending);
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
