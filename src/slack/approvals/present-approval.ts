import { questionOf } from '../../agent/person-question.js';
import type { EffectsOf } from '../../agent/tool.js';
import { argsFingerprint } from '../../approvals/args-fingerprint.js';
import { askedBecause } from '../../approvals/asked-because.js';
import type { Policy } from '../../approvals/policy.js';
import { approversFor } from '../../approvals/policy-lookup.js';
import { redactKnownPatterns } from '../../secrets/index.js';
import type { Approval } from '../../store/records.js';
import type { ApprovalOutcome, ApprovalView, QuestionView, ViewerMay } from '../blocks/index.js';
import { editFields } from './edit-fields.js';

/** Row → what a card shows. Arguments are redacted for display; the hash still pins what runs. */
export function presentApproval(
  approval: Approval,
  context: {
    policy: Policy;
    channelId: string;
    threadLink?: string;
    /** Where calls run, by tool; the card leaves it out when unknown. */
    effectsOf?: EffectsOf;
    /** Set in a view made for one person (see `ApprovalView.viewerMay`). */
    viewerMay?: ViewerMay;
  },
): ApprovalView {
  const question = questionOf(approval);
  // A question is its requester's: nobody else is shown as able to answer it.
  const approvers = question
    ? { users: [approval.requestedBy], groups: [] }
    : approversFor(context.policy, approval.toolName, approval.permissionType);
  const effects = context.effectsOf?.(approval.toolName, approval.arguments);
  return {
    requestId: approval.requestId,
    argsFingerprint: argsFingerprint(approval.argsHash),
    toolName: approval.toolName,
    permissionType: approval.permissionType,
    summary: redactKnownPatterns(approval.summary),
    argumentsJson: question
      ? JSON.stringify(
          question.kind === 'form'
            ? { asks: Object.keys(question.schema.properties) }
            : { asks: 'a visit to a link' },
          null,
          2,
        )
      : redactKnownPatterns(JSON.stringify(approval.arguments, null, 2) ?? 'null'),
    ...(question ? { question: question.kind } : {}),
    requestedBy: approval.requestedBy,
    reason: approval.reason ?? undefined,
    createdAt: approval.createdAt,
    expiresAt: approval.expiresAt,
    approverMentions: { users: [...approvers.users], groups: [...approvers.groups] },
    quorum:
      approval.requiredApprovals > 1
        ? { required: approval.requiredApprovals, approvedBy: [...approval.approvedBy] }
        : undefined,
    editable:
      !question && approval.decision === null && editFields(approval.arguments, (text) => text) !== undefined,
    // A question's "edit" is its answer, which stays out of every view.
    ...(approval.edit && !question
      ? {
          edited: {
            by: approval.edit.by,
            proposedJson: redactKnownPatterns(JSON.stringify(approval.edit.proposedArguments) ?? 'null'),
          },
        }
      : {}),
    askedBecause: askedBecause(context.policy, approval.toolName, approval.arguments),
    ...(effects ? { effects } : {}),
    ...(context.viewerMay ? { viewerMay: context.viewerMay } : {}),
    threadLink: context.threadLink,
    channelId: context.channelId,
  };
}

/** A question's row → what its card and form show; undefined for any other request. */
export function presentQuestion(approval: Approval): QuestionView | undefined {
  const question = questionOf(approval);
  if (!question) return undefined;
  return {
    requestId: approval.requestId,
    argsFingerprint: argsFingerprint(approval.argsHash),
    toolName: approval.toolName,
    requestedBy: approval.requestedBy,
    question,
    expiresAt: approval.expiresAt,
  };
}

export function outcomeOf(approval: Approval): ApprovalOutcome | undefined {
  const at = approval.resolvedAt ?? approval.expiresAt;
  switch (approval.decision) {
    case null:
      return undefined;
    case 'allowed':
      return { type: 'allowed', by: approval.decidedBy ?? 'unknown', at, always: approval.always };
    case 'denied':
      return {
        type: 'denied',
        by: approval.decidedBy ?? 'unknown',
        at,
        ...(approval.decisionReason ? { reason: redactKnownPatterns(approval.decisionReason) } : {}),
      };
    case 'expired':
      return { type: 'expired', at };
  }
}
