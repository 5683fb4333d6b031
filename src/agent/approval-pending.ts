import type { Approval } from '../store/records.js';

/**
 * Control flow, not a failure: a tool call needs a human. Thrown by the permission manager only after
 * the pending row is committed, it unwinds the whole loop so the turn can return with nothing parked in
 * memory. Deliberately not a `HoldfastError`: nothing may treat it as an error result (invariant 2).
 */
export class ApprovalPending {
  readonly name = 'ApprovalPending';

  constructor(readonly approval: Approval) {}

  get requestId(): string {
    return this.approval.requestId;
  }
}

export function isApprovalPending(value: unknown): value is ApprovalPending {
  return value instanceof ApprovalPending;
}
