import { describe, expect, it } from 'vitest';
import { gateDecision, type Tally, tallyDecision } from './tally-decision.js';

const now = 1_000_000;

describe('gateDecision', () => {
  it.each([
    ['pending, due later', { decision: null, expiresAt: now + 1 }, 'open'],
    ['pending, due this very millisecond', { decision: null, expiresAt: now }, 'expire'],
    ['pending, overdue', { decision: null, expiresAt: now - 1 }, 'expire'],
    ['allowed', { decision: 'allowed' as const, expiresAt: now + 1 }, 'already-decided'],
    ['expired, clicked late', { decision: 'expired' as const, expiresAt: now - 1 }, 'already-decided'],
  ])('%s', (_name, request, expected) => {
    expect(gateDecision(request, now).type).toBe(expected);
  });
});

describe('tallyDecision', () => {
  const table: ReadonlyArray<
    readonly [string, { decision: 'allowed' | 'denied'; always?: boolean }, [boolean, number, number], Tally]
  > = [
    ['one approval of one needed', { decision: 'allowed' }, [true, 1, 1], decide('allowed', false)],
    ['always allow', { decision: 'allowed', always: true }, [true, 1, 1], decide('allowed', true)],
    ['a denial decides at once', { decision: 'denied' }, [false, 0, 2], decide('denied', false)],
    [
      'always is ignored on a denial',
      { decision: 'denied', always: true },
      [false, 0, 1],
      decide('denied', false),
    ],
    [
      'first of two',
      { decision: 'allowed' },
      [true, 1, 2],
      { type: 'vote-recorded', votes: 1, remaining: 1 },
    ],
    [
      'second of three',
      { decision: 'allowed' },
      [true, 2, 3],
      { type: 'vote-recorded', votes: 2, remaining: 1 },
    ],
    ['the same person again', { decision: 'allowed' }, [false, 1, 2], { type: 'already-voted' }],
    ['the quorum reached', { decision: 'allowed' }, [true, 2, 2], decide('allowed', false)],
    ['a repeat once the quorum is there', { decision: 'allowed' }, [false, 2, 2], decide('allowed', false)],
  ];
  it.each(table)('%s', (_name, input, [counted, total, required], expected) => {
    expect(tallyDecision(input, { counted, total, required })).toEqual(expected);
  });
});

function decide(decision: 'allowed' | 'denied', always: boolean): Tally {
  return { type: 'decide', decision, always };
}
