import { describe, expect, it } from 'vitest';
import { nextCallToRun } from './next-call.js';

const call = (id: string) => ({ id, name: 'run_shell', arguments: '{}' });

describe('nextCallToRun', () => {
  it.each([
    [['a', 'b'], [], 'a'],
    [['a', 'b'], ['a'], 'b'],
    [['a', 'b'], ['b'], 'a'],
    [['a', 'b'], ['a', 'b'], undefined],
    [[], [], undefined],
  ])('calls %j with results for %j → %s', (ids, answered, expected) => {
    expect(nextCallToRun(ids.map(call), new Set(answered))?.id).toBe(expected);
  });
});
