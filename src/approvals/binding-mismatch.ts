import type { Approval } from '../store/records.js';
import { argsFingerprint } from './args-fingerprint.js';
import type { DecideApprovalDeps } from './decide-approval-deps.js';
import type { DecisionRequest } from './decision-request.js';
import type { RefusalReason } from './refusal-reason.js';

/**
 * Whether a click belongs to the request it names: the same workspace and organisation, the card the
 * row points at (for clicks on a card), and the arguments the row holds.
 */
export async function bindingMismatch(
  deps: Pick<DecideApprovalDeps, 'store'>,
  approval: Approval,
  click: Pick<DecisionRequest, 'origin' | 'argsFingerprint' | 'installationEnterpriseId'>,
): Promise<RefusalReason | undefined> {
  const conversation = await deps.store.conversations.get(approval.conversationId);
  return (
    originMismatch(approval, conversation?.teamId, click) ??
    (click.argsFingerprint === argsFingerprint(approval.argsHash) ? undefined : 'arguments-mismatch')
  );
}

export function isRecordedCard(approval: Approval, channel: string, ts: string): boolean {
  return approval.cards.some((card) => card.channel === channel && card.ts === ts);
}

function originMismatch(
  approval: Approval,
  teamId: string | undefined,
  click: Pick<DecisionRequest, 'origin' | 'installationEnterpriseId'>,
): RefusalReason | undefined {
  const { origin } = click;
  if (teamId !== undefined && origin.teamId !== teamId) return 'workspace-mismatch';
  // Team ids are only unique within an organisation's view of Slack; the organisation has to match too.
  if (origin.enterpriseId !== click.installationEnterpriseId) return 'workspace-mismatch';
  if (origin.type === 'inbox') return undefined;
  // Every recorded card of the request decides it. A message in a channel where no card is recorded yet
  // is one whose post landed but whose ts was never stored (a crash): it becomes a card on this click.
  // A real request id on any other message in a channel that has its cards is a forgery.
  if (isRecordedCard(approval, origin.channelId, origin.messageTs)) return undefined;
  if (approval.cards.some((card) => card.channel === origin.channelId)) return 'origin-mismatch';
  return undefined;
}
