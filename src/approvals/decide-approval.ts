import { isQuestion, questionOf } from '../agent/person-question.js';
import type { Approval } from '../store/records.js';
import type { DecisionInput, Lease } from '../store/store.js';
import { bindingMismatch, isRecordedCard } from './binding-mismatch.js';
import type { DecideApprovalDeps } from './decide-approval-deps.js';
import type { DecisionOutcome } from './decision-outcome.js';
import type { DecisionRequest } from './decision-request.js';
import { refusalFor } from './may-decide.js';
import { type RefusedClick, recordRefusal } from './record-refusal.js';

// A decision's parts each have a file of their own; this one stays where importers take them from.
export { bindingMismatch } from './binding-mismatch.js';
export type { CardLookup, CardLookupResult } from './card-lookup.js';
export type { ApproverDirectory, DecideApprovalDeps } from './decide-approval-deps.js';
export type { DecisionOutcome } from './decision-outcome.js';
export type { DecisionAction, DecisionOrigin, DecisionRequest } from './decision-request.js';
export { mayDecide, refusalFor } from './may-decide.js';
export { type RefusedClick, recordRefusal } from './record-refusal.js';
export type { RefusalReason, RefusalRecord } from './refusal-reason.js';

/** The store audits the grant in the decision's commit; the log says the same, with its scope. */
function logGrantCreated(deps: DecideApprovalDeps, request: DecisionRequest, approval: Approval): void {
  const grant = request.action === 'always' ? request.grant : undefined;
  deps.logger.info(
    {
      requestId: approval.requestId,
      tool: approval.toolName,
      grantedBy: request.userId,
      // Without a chosen scope the grant is the whole tool in the request's thread, until revoked.
      scope: grant?.scope ?? 'conversation',
      scopeId: grant?.scopeId ?? approval.conversationId,
      covers: grant?.argsHash ? 'exact call' : grant?.match ? { match: grant.match } : 'every call',
      ...(grant?.expiresAt === undefined ? {} : { expiresAt: grant.expiresAt }),
      ...(grant?.maxUses === undefined ? {} : { maxUses: grant.maxUses }),
    },
    'grant created',
  );
}

/**
 * A human's click, start to end: the request must exist, come from where its card is, and the clicker
 * must be allowed to decide it; then the store's compare-and-set decides it once (invariant 7).
 */
export async function decideApproval(
  deps: DecideApprovalDeps,
  request: DecisionRequest,
  options: {
    /** Offered so the decision that completes a turn's approvals also claims the turn for resume. */
    readonly lease?: Lease;
  } = {},
): Promise<DecisionOutcome> {
  const editing = request.action === 'allow' ? request.edit : undefined;
  // What the audit calls the click: an edit is asked for and refused as such.
  const click: RefusedClick = editing ? { ...request, action: 'edit' } : request;
  const approval = await deps.store.approvals.get(request.requestId);
  if (!approval) {
    await recordRefusal(deps, click, 'unknown-request');
    return { type: 'unknown' };
  }
  // A click from elsewhere, or for other arguments, is refused as such even on a decided request: the
  // outcome and who decided are not told to a click that does not belong to the request.
  const mismatch = await bindingMismatch(deps, approval, request);
  if (mismatch) {
    await recordRefusal(deps, click, mismatch, approval);
    return { type: 'refused', reason: mismatch, approval };
  }
  const refusal = await refusalFor(deps, approval, request.userId, request.action);
  if (refusal && approval.decision === null) {
    await recordRefusal(deps, click, refusal, approval);
    return { type: 'refused', reason: refusal, approval };
  }
  // A question's form is its answer: an Allow without one (from an inbox, or forged) would send the
  // server an empty answer to what it asked, so it changes nothing.
  if (
    !refusal &&
    approval.decision === null &&
    request.action === 'allow' &&
    !editing &&
    questionOf(approval)?.kind === 'form'
  ) {
    const problem = 'This is a question: answer it in its form, with *Answer…* on its card. Nothing changed.';
    await recordRefusal(deps, click, 'edit-refused', approval, { problem: 'answer-needed' });
    return { type: 'edit-refused', reason: 'invalid-arguments', problem, approval };
  }
  // Consent is to the tool as the card showed it: someone who may decide cannot allow a tool whose
  // definition changed since, and may still deny it. The request is shown again, bound to the tool as it
  // is now, with a note saying what changed; the approvals given so far no longer count.
  // (A question binds what it asks, not the tool: its call runs again, and is checked then.)
  const redefined =
    approval.decision === null && request.action !== 'deny' && !isQuestion(approval)
      ? await deps.definitionChanged?.(approval)
      : undefined;
  if (redefined) {
    await recordRefusal(deps, click, 'definition-changed', approval);
    const rebound = await deps.store.approvals.rebind({
      requestId: approval.requestId,
      fromArgsHash: approval.argsHash,
      ...redefined,
    });
    return { type: 'refused', reason: 'definition-changed', approval: rebound.approval ?? approval };
  }
  let edit: DecisionInput['edit'];
  if (editing && !refusal && approval.decision === null) {
    if (!deps.checkEdit) throw new Error('a decision with an edit needs checkEdit');
    // Deny still wins: an edited call is checked as a new call would be, before anything is written.
    const check = await deps.checkEdit(approval, editing.arguments);
    if (check.type === 'refused') {
      await recordRefusal(deps, click, 'edit-refused', approval, { problem: check.reason });
      return { type: 'edit-refused', reason: check.reason, problem: check.problem, approval };
    }
    if (check.type === 'edit') edit = check.edit;
  }
  const origin = request.origin;
  // A clicked card whose ts was never recorded (the process died right after posting it), found in Slack
  // by the binding check, becomes one of the request's cards in the decision's commit.
  const newCard =
    origin.type === 'card' && !isRecordedCard(approval, origin.channelId, origin.messageTs)
      ? { channel: origin.channelId, ts: origin.messageTs }
      : undefined;
  // A decided request reports that fact even to someone who could not have decided it.
  const result: DecisionOutcome = refusal
    ? { type: 'already-decided', approval }
    : await deps.store.approvals.resolve(
        {
          requestId: request.requestId,
          decision: request.action === 'deny' ? 'denied' : 'allowed',
          decidedBy: request.userId,
          always: request.action === 'always',
          ...(request.action === 'deny' && request.reason ? { reason: request.reason } : {}),
          ...(request.action === 'always' && request.grant ? { grant: request.grant } : {}),
          ...(edit ? { edit } : {}),
        },
        { lease: options.lease, card: newCard },
      );
  switch (result.type) {
    case 'unknown':
      await recordRefusal(deps, click, 'unknown-request');
      break;
    case 'already-decided':
      await recordRefusal(deps, click, 'already-decided', result.approval, {
        decision: result.approval.decision,
        decidedBy: result.approval.decidedBy,
        ...(refusal ? { alsoRefused: refusal } : {}),
      });
      break;
    case 'already-voted':
      await recordRefusal(deps, click, 'already-voted', result.approval);
      break;
    case 'arguments-changed':
      await recordRefusal(deps, click, 'arguments-changed', result.approval);
      break;
    case 'decided':
      if (result.approval.always) logGrantCreated(deps, request, result.approval);
      break;
    default:
      break;
  }
  return result;
}
