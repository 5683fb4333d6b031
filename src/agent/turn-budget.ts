import { HoldfastError } from '../errors.js';

/** What one turn may spend, across the main agent and every nested agent it delegates to. */
export interface BudgetLimits {
  readonly modelCalls: number;
  readonly toolCalls: number;
}

export const defaultBudgetLimits: BudgetLimits = { modelCalls: 40, toolCalls: 100 };

export class TurnBudgetExceededError extends HoldfastError {
  readonly code = 'turn_budget_exceeded';
  constructor(readonly limit: number) {
    super(`The request used its budget of ${limit} model calls without finishing`);
  }
}

/**
 * One turn's spending. It starts from what the transcript shows was already spent (a resumed or
 * recovered turn keeps its count), so a hostile model endpoint or forty `delegate` calls cannot make one
 * message cost hundreds of model calls.
 */
export class TurnBudget {
  #modelCalls: number;
  #toolCalls: number;

  constructor(
    readonly limits: BudgetLimits,
    spent: { readonly modelCalls: number; readonly toolCalls: number } = { modelCalls: 0, toolCalls: 0 },
  ) {
    this.#modelCalls = spent.modelCalls;
    this.#toolCalls = spent.toolCalls;
  }

  /** Before a model call: throws once the turn has had all the model calls it may have. */
  chargeModelCall(): void {
    if (this.#modelCalls >= this.limits.modelCalls) throw new TurnBudgetExceededError(this.limits.modelCalls);
    this.#modelCalls += 1;
  }

  /** Before a tool call: false (and nothing charged) once the turn has run all the tools it may. */
  chargeToolCall(): boolean {
    if (this.#toolCalls >= this.limits.toolCalls) return false;
    this.#toolCalls += 1;
    return true;
  }
}
