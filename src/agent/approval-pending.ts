import type { Approval } from '../store/records.js';

/**
 * Control flow, not a failure: tool calls need a person. Thrown only after the pending rows are committed
 * (with the suspension, when the loop wrote them), it unwinds the whole loop so the turn can return with
 * nothing parked in memory. Deliberately not a `HoldfastError`: nothing may treat it as an error result
 * (invariant 2).
 */
export class ApprovalPending {
  readonly name = 'ApprovalPending';

  constructor(
    /** Every request the turn now waits on, in call order; never empty. */
    readonly approvals: readonly [Approval, ...Approval[]],
    /** True when the turn's suspension committed with the rows; false when the runner still must write it. */
    readonly suspended: boolean,
  ) {}

  get approval(): Approval {
    return this.approvals[0];
  }

  get requestId(): string {
    return this.approval.requestId;
  }
}

/** The requests a suspension waits on, which are never none. */
export function nonEmptyApprovals(approvals: readonly Approval[]): [Approval, ...Approval[]] {
  const [first, ...rest] = approvals;
  if (!first) throw new Error('a suspension needs at least one approval');
  return [first, ...rest];
}
