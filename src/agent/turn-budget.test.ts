import { describe, expect, it } from 'vitest';
import { TurnBudget, TurnBudgetExceededError } from './turn-budget.js';

describe('TurnBudget', () => {
  it('allows model calls up to the limit, then throws a coded error', () => {
    const budget = new TurnBudget({ modelCalls: 2, toolCalls: 5 });
    budget.chargeModelCall();
    budget.chargeModelCall();
    expect(() => budget.chargeModelCall()).toThrow(TurnBudgetExceededError);
  });

  it('counts what a resumed turn had already spent', () => {
    const budget = new TurnBudget({ modelCalls: 3, toolCalls: 2 }, { modelCalls: 3, toolCalls: 1 });
    expect(() => budget.chargeModelCall()).toThrow(/budget of 3 model calls/);
    expect(budget.chargeToolCall()).toBe(true);
    expect(budget.chargeToolCall()).toBe(false);
  });
});
