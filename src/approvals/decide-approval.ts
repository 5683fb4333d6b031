import type { Logger } from 'pino';
import type { Approval } from '../store/records.js';
import type { ClaimedTurn, DecisionInput, Lease, Store } from '../store/store.js';
import { argsFingerprint } from './args-fingerprint.js';
import type { EditCheck, EditRefusal } from './check-edit.js';
import type { Policy } from './policy.js';
import { approversFor } from './policy-lookup.js';

/** Who is in a user group; Slack's `usergroups.users.list` behind a cache, in production. */
export interface ApproverDirectory {
  groupMembers(groupId: string): Promise<readonly string[]>;
}

export type DecisionAction = 'allow' | 'deny' | 'always';

/**
 * Where the click came from, as Slack reported it; checked against the row. `inbox` is any surface other
 * than the card itself: an ephemeral `/approvals` reply, the App Home, the full-arguments modal.
 */
export type DecisionOrigin =
  | {
      readonly type: 'card';
      readonly teamId: string;
      readonly enterpriseId: string | undefined;
      readonly channelId: string;
      readonly messageTs: string;
    }
  | { readonly type: 'inbox'; readonly teamId: string; readonly enterpriseId: string | undefined };

export interface DecisionRequest {
  readonly requestId: string;
  readonly userId: string;
  readonly action: DecisionAction;
  readonly origin: DecisionOrigin;
  /** The arguments fingerprint the clicked button carried (see `argsFingerprint`); undefined for none. */
  readonly argsFingerprint: string | undefined;
  /**
   * The Enterprise Grid organisation holdfast is installed in (`auth.test`), undefined outside Grid.
   * Conversations do not record their organisation; one installation serves one organisation, so every
   * request it holds came from this one.
   */
  readonly installationEnterpriseId: string | undefined;
  /** Why, in the decider's words (a denial's reason); kept with the decision. */
  readonly reason?: string;
  /** With `always`: what the grant covers (default: the whole tool in this thread, until revoked). */
  readonly grant?: DecisionInput['grant'];
  /** With `allow`: the arguments as the approver edited them, to allow instead of the proposed ones. */
  readonly edit?: { readonly arguments: unknown };
}

export type RefusalReason =
  | 'not-approver'
  | 'self-approval'
  | 'no-approvers'
  | 'origin-mismatch'
  | 'workspace-mismatch'
  | 'arguments-mismatch';

/** Why a click changed nothing, as the audit table records it. */
export type RefusalRecord =
  | RefusalReason
  | 'unknown-request'
  | 'already-decided'
  | 'already-voted'
  /** Someone asked to see a request they are not entitled to (not its requester, approver or audience). */
  | 'not-entitled'
  /** Edited arguments that cannot be allowed (a deny rule, the tool's schema): see `checkEdit`. */
  | 'edit-refused'
  /** An edit of arguments the request no longer holds: someone else edited it first. */
  | 'arguments-changed';

/** A click that is refused, for the audit row: who, on what, from where. */
export interface RefusedClick {
  readonly userId: string;
  readonly requestId: string;
  /** A decision, `edit` for an edit before allowing, or `view` for opening the full arguments. */
  readonly action: DecisionAction | 'edit' | 'view';
  readonly origin: DecisionOrigin;
}

export type DecisionOutcome =
  | {
      readonly type: 'decided';
      readonly approval: Approval;
      readonly turnReady: boolean;
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'vote-recorded'; readonly approval: Approval; readonly remaining: number }
  | { readonly type: 'already-voted'; readonly approval: Approval }
  | { readonly type: 'already-decided'; readonly approval: Approval }
  | {
      readonly type: 'expired';
      readonly approval: Approval;
      readonly turnReady: boolean;
      readonly claim?: ClaimedTurn;
    }
  | { readonly type: 'refused'; readonly reason: RefusalReason; readonly approval: Approval }
  /** The edited arguments cannot be allowed; nothing changed. `problem` says why, to the approver. */
  | {
      readonly type: 'edit-refused';
      readonly reason: EditRefusal;
      readonly problem: string;
      readonly approval: Approval;
    }
  | { readonly type: 'arguments-changed'; readonly approval: Approval }
  | { readonly type: 'unknown' };

export interface DecideApprovalDeps {
  readonly store: Store;
  readonly policy: Policy;
  readonly directory: ApproverDirectory;
  readonly logger: Logger;
  /** Checks an approver's edited arguments (see `checkEdit`); needed only for decisions with an edit. */
  readonly checkEdit?: (approval: Approval, edited: unknown) => Promise<EditCheck>;
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
    /** Who sends the card rewrites the decision writes. */
    readonly deliverAs?: Lease;
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
  const refusal = await authorize(deps, approval, request.userId, request.action);
  if (refusal && approval.decision === null) {
    await recordRefusal(deps, click, refusal, approval);
    return { type: 'refused', reason: refusal, approval };
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
  // A clicked card whose ts was never recorded (the process died right after posting it) becomes one of
  // the request's cards in the decision's commit.
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
        { lease: options.lease, deliverAs: options.deliverAs, card: newCard },
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
    default:
      break;
  }
  return result;
}

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

function isRecordedCard(approval: Approval, channel: string, ts: string): boolean {
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

async function authorize(
  deps: Pick<DecideApprovalDeps, 'policy' | 'directory'>,
  approval: Approval,
  userId: string,
  action: DecisionAction,
): Promise<RefusalReason | undefined> {
  // The requester may always withdraw their own request; approving it needs explicit permission.
  if (userId === approval.requestedBy) {
    if (action === 'deny') return undefined;
    if (!deps.policy.approvers.allowSelfApproval) return 'self-approval';
  }
  const approvers = approversFor(deps.policy, approval.toolName, approval.permissionType);
  if (approvers.users.length === 0 && approvers.groups.length === 0) return 'no-approvers';
  if (approvers.users.includes(userId)) return undefined;
  for (const group of approvers.groups) {
    if ((await deps.directory.groupMembers(group)).includes(userId)) return undefined;
  }
  return 'not-approver';
}

/** Why this user may not take `action` on the request, or undefined when they may; the click re-checks. */
export function refusalFor(
  deps: Pick<DecideApprovalDeps, 'policy' | 'directory'>,
  approval: Approval,
  userId: string,
  action: DecisionAction,
): Promise<RefusalReason | undefined> {
  return authorize(deps, approval, userId, action);
}

/** Whether this user could decide this approval now (for inboxes); the click path re-checks. */
export async function mayDecide(
  deps: Pick<DecideApprovalDeps, 'policy' | 'directory'>,
  approval: Approval,
  userId: string,
): Promise<boolean> {
  return (await authorize(deps, approval, userId, 'allow')) === undefined;
}

export function describeRefusal(reason: RefusalReason, approval: Approval): string {
  switch (reason) {
    case 'not-approver':
      return `You are not an approver for \`${approval.toolName}\`. Ask someone on the approver list to decide it.`;
    case 'self-approval':
      return 'You asked for this call, so you cannot approve it yourself. Another approver has to decide.';
    case 'no-approvers':
      return `No approvers are configured for \`${approval.toolName}\`. Set HOLDFAST_APPROVERS or the policy file.`;
    case 'origin-mismatch':
      return 'This button does not belong to that approval request, so nothing was changed.';
    case 'workspace-mismatch':
      return 'This click came from another Slack workspace or organisation than the request, so nothing was changed.';
    case 'arguments-mismatch':
      if (approval.edit && approval.decision === null) {
        return (
          `<@${approval.edit.by}> edited the arguments of this request after this button was made, so nothing ` +
          'was changed. Check the edited call on the card (or in `/approvals`) and decide that.'
        );
      }
      return (
        'This button was not made for the arguments that request holds, so nothing was changed. ' +
        'Open the request from `/approvals` or the App Home and check what will run.'
      );
  }
}
