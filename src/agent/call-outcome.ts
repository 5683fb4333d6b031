import { TurnStoppedError } from './agent-errors.js';
import type { PermissionDecision } from './permission-checker.js';
import type { ToolOutcome } from './tool-outcome.js';

/** How a call the permission check turned down ended. */
export function notRunOutcome(decision: Extract<PermissionDecision, { type: 'denied' }>): ToolOutcome {
  switch (decision.source) {
    case 'expired':
      return { type: 'expired' };
    case 'approval':
      // Without a person it was holdfast: the arguments differed from the approved ones.
      return decision.by ? { type: 'denied', by: decision.by } : { type: 'refused', by: 'holdfast' };
    case 'policy':
      return { type: 'refused', by: 'policy' };
    case 'auto-approve':
    case 'grant':
    case 'tool':
      // These only ever allow; a denial from them would be holdfast's own.
      return { type: 'refused', by: 'holdfast' };
  }
}

/**
 * How a run ended when the turn was cut short under it: Stop killed it, or a shutdown or a lost lease
 * did, and then what it did is unknown. Undefined when nothing cut it short.
 */
export function cutShort(signal: AbortSignal): ToolOutcome | undefined {
  if (!signal.aborted) return undefined;
  const reason: unknown = signal.reason;
  if (reason instanceof TurnStoppedError) return { type: 'stopped', by: reason.stoppedBy };
  return { type: 'interrupted' };
}
