import type { Approval } from '../store/records.js';
import type { DecideApprovalDeps } from './decide-approval-deps.js';
import type { DecisionAction, DecisionOrigin } from './decision-request.js';
import type { RefusalRecord } from './refusal-reason.js';

/** A click that is refused, for the audit row: who, on what, from where. */
export interface RefusedClick {
  readonly userId: string;
  readonly requestId: string;
  /** A decision, `edit` for an edit before allowing, or `view` for opening the full arguments. */
  readonly action: DecisionAction | 'edit' | 'view';
  readonly origin: DecisionOrigin;
}

/** Every refused click gets an audit row and a log line: who, on which request, from where, and why. */
export async function recordRefusal(
  deps: Pick<DecideApprovalDeps, 'store' | 'logger'>,
  click: RefusedClick,
  reason: RefusalRecord,
  approval?: Approval,
  details: Record<string, unknown> = {},
): Promise<void> {
  await deps.store.audit.record({
    actor: click.userId,
    kind: 'approval.refused',
    approvalId: approval?.requestId ?? null,
    conversationId: approval?.conversationId ?? null,
    data: {
      reason,
      action: click.action,
      origin: click.origin,
      // An unknown id is whatever the payload said: kept for the record, bounded.
      ...(approval ? {} : { requestId: click.requestId.slice(0, 200) }),
      ...details,
    },
  });
  // Two approvers racing is ordinary; everything else is someone trying what they may not.
  const level = reason === 'already-decided' || reason === 'already-voted' ? 'info' : 'warn';
  deps.logger[level](
    { requestId: click.requestId.slice(0, 200), user: click.userId, action: click.action, reason },
    'click refused',
  );
}
