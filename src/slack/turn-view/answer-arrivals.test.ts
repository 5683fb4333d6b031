import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnswerArrivals } from './answer-arrivals.js';

describe('a completed turn waits for its answer before its tick', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows the tick once the answer reaches the thread, not before', () => {
    const arrivals = new AnswerArrivals(10_000);
    const shown: string[] = [];
    arrivals.afterAnswer('turn-1', () => shown.push('turn-1'));
    expect(shown).toEqual([]);
    arrivals.arrived('turn-1', true);
    expect(shown).toEqual(['turn-1']);
    vi.advanceTimersByTime(10_000);
    expect(shown).toEqual(['turn-1']);
  });

  it('shows the tick at once when the answer arrived first', () => {
    const arrivals = new AnswerArrivals(10_000);
    const shown: string[] = [];
    arrivals.arrived('turn-1', true);
    arrivals.afterAnswer('turn-1', () => shown.push('turn-1'));
    expect(shown).toEqual(['turn-1']);
  });

  it('never shows the tick of an answer Slack refused', () => {
    const arrivals = new AnswerArrivals(10_000);
    const shown: string[] = [];
    arrivals.afterAnswer('turn-1', () => shown.push('turn-1'));
    arrivals.failed('turn-1');
    vi.advanceTimersByTime(20_000);
    expect(shown).toEqual([]);
  });

  it('shows the tick after the wait when the answer is posted elsewhere', () => {
    const arrivals = new AnswerArrivals(10_000);
    const shown: string[] = [];
    arrivals.afterAnswer('turn-1', () => shown.push('turn-1'));
    vi.advanceTimersByTime(9_999);
    expect(shown).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(shown).toEqual(['turn-1']);
  });

  it('keeps no arrival of a turn whose ending is not followed here', () => {
    const arrivals = new AnswerArrivals(10_000);
    const shown: string[] = [];
    arrivals.arrived('turn-1', false);
    arrivals.afterAnswer('turn-1', () => shown.push('turn-1'));
    expect(shown).toEqual([]);
  });
});
