/** A clock the test moves by hand; pass `clock.now` wherever the code takes `now`. */
export interface TestClock {
  readonly now: () => number;
  advance(ms: number): number;
  set(ms: number): void;
}

export const testEpoch = Date.UTC(2025, 0, 6, 9, 0, 0);

export function createTestClock(start = testEpoch): TestClock {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      current += ms;
      return current;
    },
    set(ms) {
      current = ms;
    },
  };
}
