import type { DecisionOrigin } from '../../approvals/decide-approval.js';
import type { FieldInput } from '../blocks/index.js';
import { type DecisionModalMetadata, decisionModalMetadataSchema, type ViewSubmission } from '../payloads.js';

/** A decision modal's submission, with the click it answers read back from the modal's metadata. */
export interface DecisionModalSubmission {
  readonly userId: string;
  readonly teamId: string;
  readonly metadata: DecisionModalMetadata;
  readonly origin: DecisionOrigin;
  /** The trimmed text of each plain input, by `block_id.action_id`; empty answers are left out. */
  readonly text: (blockId: string, actionId: string) => string | undefined;
  /** The selected option of each select or radio input, by `block_id.action_id`. */
  readonly choice: (blockId: string, actionId: string) => string | undefined;
  /** An input's state as Slack sent it (untrimmed text, every selected option), by `block_id.action_id`. */
  readonly input: (blockId: string, actionId: string) => FieldInput | undefined;
}

/**
 * Reads what holdfast needs from a submission; undefined when it is not one of holdfast's decision modals
 * (no metadata of the right shape) or comes from another workspace than the click did.
 */
export function readDecisionModal(payload: ViewSubmission): DecisionModalSubmission | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.view.private_metadata ?? '');
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  const metadata = decisionModalMetadataSchema.safeParse(parsed);
  if (!metadata.success) return undefined;
  const teamId = payload.team?.id ?? payload.user.team_id;
  if (!teamId || teamId !== metadata.data.origin.teamId) return undefined;
  const origin: DecisionOrigin =
    metadata.data.origin.type === 'card'
      ? { ...metadata.data.origin, enterpriseId: metadata.data.origin.enterpriseId }
      : { ...metadata.data.origin, enterpriseId: metadata.data.origin.enterpriseId };
  const values = payload.view.state?.values ?? {};
  return {
    userId: payload.user.id,
    teamId,
    metadata: metadata.data,
    origin,
    text(blockId, actionId) {
      const value = values[blockId]?.[actionId]?.value?.trim();
      return value ? value : undefined;
    },
    choice(blockId, actionId) {
      return values[blockId]?.[actionId]?.selected_option?.value;
    },
    input(blockId, actionId) {
      return values[blockId]?.[actionId];
    },
  };
}
