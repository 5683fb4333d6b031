import type { Approval } from '../store/records.js';
import { argsFingerprint } from './args-fingerprint.js';
import type { CardLookup } from './card-lookup.js';
import type { DecideApprovalDeps } from './decide-approval-deps.js';
import type { DecisionRequest } from './decision-request.js';
import type { RefusalReason } from './refusal-reason.js';

/**
 * Whether a click belongs to the request it names: the same workspace and organisation, one of the
 * request's cards as posted (for clicks on a card), and the arguments the row holds.
 */
export async function bindingMismatch(
  deps: Pick<DecideApprovalDeps, 'store' | 'cards'>,
  approval: Approval,
  click: Pick<DecisionRequest, 'origin' | 'argsFingerprint' | 'installationEnterpriseId'>,
): Promise<RefusalReason | undefined> {
  const conversation = await deps.store.conversations.get(approval.conversationId);
  return (
    workspaceMismatch(conversation?.teamId, click) ??
    (click.argsFingerprint === argsFingerprint(approval.argsHash) ? undefined : 'arguments-mismatch') ??
    (await cardMismatch(deps.cards, approval, click.origin))
  );
}

export function isRecordedCard(approval: Approval, channel: string, ts: string): boolean {
  return approval.cards.some((card) => card.channel === channel && card.ts === ts);
}

function workspaceMismatch(
  teamId: string | undefined,
  click: Pick<DecisionRequest, 'origin' | 'installationEnterpriseId'>,
): RefusalReason | undefined {
  const { origin } = click;
  if (teamId !== undefined && origin.teamId !== teamId) return 'workspace-mismatch';
  // Team ids are only unique within an organisation's view of Slack; the organisation has to match too.
  if (origin.enterpriseId !== click.installationEnterpriseId) return 'workspace-mismatch';
  return undefined;
}

/**
 * Every recorded card of the request decides it. Any other message is asked of the chat service: a card
 * whose post landed but whose ts a crash kept from the database is found there (and becomes a card on
 * this click); a message no card of the request was posted as, in whatever channel, never decides it.
 */
async function cardMismatch(
  cards: CardLookup | undefined,
  approval: Approval,
  origin: DecisionRequest['origin'],
): Promise<RefusalReason | undefined> {
  if (origin.type === 'inbox') return undefined;
  if (isRecordedCard(approval, origin.channelId, origin.messageTs)) return undefined;
  const found = cards
    ? await cards.find(approval, { channel: origin.channelId, ts: origin.messageTs })
    : 'not-a-card';
  switch (found) {
    case 'card':
      return undefined;
    case 'not-a-card':
      return 'origin-mismatch';
    case 'unknown':
      return 'origin-unconfirmed';
  }
}
