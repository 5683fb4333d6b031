import { describe, expect, it } from 'vitest';
import { admitTurn } from './admit-turn.js';

const limits = { perThread: 3, perUser: 5 };

describe('admitTurn', () => {
  it.each([
    [{ inThread: 0, byUser: 0 }, { type: 'admit' }],
    [{ inThread: 2, byUser: 4 }, { type: 'admit' }],
    [
      { inThread: 3, byUser: 0 },
      { type: 'refuse', reason: 'thread-busy', unfinished: 3 },
    ],
    [
      { inThread: 1, byUser: 5 },
      { type: 'refuse', reason: 'user-busy', unfinished: 5 },
    ],
    [
      { inThread: 9, byUser: 9 },
      { type: 'refuse', reason: 'thread-busy', unfinished: 9 },
    ],
  ])('%j → %j', (unfinished, expected) => {
    expect(admitTurn(unfinished, limits)).toEqual(expected);
  });
});
