import type { DecisionOrigin } from '../../approvals/decide-approval.js';
import { type ApprovalActionKind, approvalActionKind, parseApprovalBlockId } from '../blocks/index.js';
import { type BlockActions, clickEnterpriseId, modalReplyToSchema } from '../payloads.js';

/** Who clicked, in which workspace, on which message or view, and where to reply: every holdfast button. */
export interface ClickSite {
  readonly userId: string;
  readonly teamId: string;
  readonly origin: DecisionOrigin;
  /** Where a private reply to the clicker goes, when the click names a channel. */
  readonly replyTo: { readonly channel: string; readonly threadTs?: string } | undefined;
  readonly triggerId: string | undefined;
  /** Whether the payload carried a `response_url` to reply through (inbox messages, cards). */
  readonly hasResponseUrl: boolean;
  /** Which view the click was in, if any: `home` for the App Home, `modal` for the full arguments. */
  readonly viewType: string | undefined;
}

/** A click on one of holdfast's approval buttons, as far as the payload can tell. */
export interface ApprovalButtonClick extends ClickSite {
  readonly kind: ApprovalActionKind;
  readonly requestId: string;
  /** From the block id; undefined when it carried none or named another request than the value. */
  readonly argsFingerprint: string | undefined;
}

/** The site of a click in a parsed `block_actions` payload; undefined when it names no team. */
export function readClickSite(payload: BlockActions): ClickSite | undefined {
  const teamId = payload.team?.id ?? payload.user.team_id;
  if (!teamId) return undefined;
  const enterpriseId = clickEnterpriseId(payload);
  const container = payload.container;
  const channel = container?.channel_id ?? payload.channel?.id;
  const onCard =
    container?.type === 'message' && container.is_ephemeral !== true && channel && container.message_ts;
  const origin: DecisionOrigin = onCard
    ? { type: 'card', teamId, enterpriseId, channelId: channel, messageTs: container.message_ts! }
    : { type: 'inbox', teamId, enterpriseId };
  return {
    userId: payload.user.id,
    teamId,
    origin,
    replyTo: channel
      ? { channel, threadTs: payload.message?.thread_ts }
      : modalReplyTo(payload.view?.private_metadata),
    triggerId: payload.trigger_id,
    hasResponseUrl: payload.response_url !== undefined,
    viewType: container?.type === 'view' ? payload.view?.type : undefined,
  };
}

/** The approval click in a parsed `block_actions` payload; undefined when it holds none or no team. */
export function readApprovalClick(payload: BlockActions): ApprovalButtonClick | undefined {
  const action = payload.actions.find((candidate) => approvalActionKind(candidate.action_id));
  const kind = action ? approvalActionKind(action.action_id) : undefined;
  const site = readClickSite(payload);
  if (!action || !kind || !site) return undefined;
  const block = parseApprovalBlockId(action.block_id ?? '');
  return {
    ...site,
    kind,
    requestId: action.value,
    argsFingerprint: block?.requestId === action.value ? block.argsFingerprint : undefined,
  };
}

/** The channel a modal was opened from, kept in its metadata by holdfast when it opened it. */
function modalReplyTo(metadata: string | undefined): ApprovalButtonClick['replyTo'] {
  if (!metadata) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  const replyTo = modalReplyToSchema.safeParse(parsed);
  return replyTo.success && replyTo.data.channel
    ? { channel: replyTo.data.channel, threadTs: replyTo.data.threadTs }
    : undefined;
}
