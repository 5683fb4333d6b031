import type { DecisionRequest } from '../../approvals/decide-approval.js';
import { grantPatternProblem } from '../../approvals/grant-covers.js';
import type { Approval } from '../../store/records.js';
import { GRANT_ACTION_ID, GRANT_FIELDS, type GrantDurationChoice, grantDurations } from '../blocks/index.js';
import type { DecisionModalSubmission } from './read-decision-modal.js';

export type GrantFormResult =
  | { readonly type: 'grant'; readonly grant: NonNullable<DecisionRequest['grant']> }
  /** Shown beside the fields, with the form left open (`response_action: errors`). */
  | { readonly type: 'errors'; readonly errors: Record<string, string> };

const maxUses = 1_000;

/**
 * What an approver chose in the grant form, checked: a pattern must cover the call being approved and be
 * more than wildcards, a use limit a whole number from 1 to 1,000. Unknown choices fall back to the
 * narrowest (this exact call, this thread, one hour), never to something wider.
 */
export function readGrantForm(
  submission: DecisionModalSubmission,
  approval: Pick<Approval, 'toolName' | 'arguments' | 'argsHash' | 'conversationId'>,
  channelId: string,
  now: number,
): GrantFormResult {
  const value = (field: string) =>
    submission.choice(field, GRANT_ACTION_ID) ?? submission.text(field, GRANT_ACTION_ID);
  const errors: Record<string, string> = {};
  const scope = value(GRANT_FIELDS.scope) === 'channel' ? 'channel' : 'conversation';
  const duration = value(GRANT_FIELDS.duration);
  const lasts =
    duration !== undefined && duration in grantDurations
      ? grantDurations[duration as GrantDurationChoice]
      : grantDurations['1h'];
  const usesText = value(GRANT_FIELDS.uses);
  const uses = usesText === undefined ? undefined : Number(usesText);
  if (uses !== undefined && (!Number.isInteger(uses) || uses < 1 || uses > maxUses))
    errors[GRANT_FIELDS.uses] = `A whole number from 1 to ${maxUses}, or leave it empty.`;

  const argument = submission.metadata.argument;
  const pattern = value(GRANT_FIELDS.pattern) ?? '';
  let covers: { match: Record<string, string> } | { argsHash: string } = { argsHash: approval.argsHash };
  if (value(GRANT_FIELDS.covers) === 'pattern' && argument) {
    const args =
      typeof approval.arguments === 'object' && approval.arguments !== null
        ? (approval.arguments as Record<string, unknown>)
        : {};
    const problem = grantPatternProblem(
      pattern,
      { toolName: approval.toolName, args, argsHash: approval.argsHash },
      argument,
    );
    if (problem) errors[GRANT_FIELDS.pattern] = problem;
    covers = { match: { [argument]: pattern.trim() } };
  }
  if (Object.keys(errors).length > 0) return { type: 'errors', errors };
  return {
    type: 'grant',
    grant: {
      scope,
      scopeId: scope === 'channel' ? channelId : approval.conversationId,
      ...covers,
      ...(lasts === null ? {} : { expiresAt: now + lasts }),
      ...(uses === undefined ? {} : { maxUses: uses }),
    },
  };
}
