import type { ActionsBlock, Button } from '@slack/types';
import { isArgsFingerprint } from '../../approvals/args-fingerprint.js';
import { inlineCodeSafe } from '../text/escape-mrkdwn.js';
import { escapeAndTruncate, truncateText } from '../text/truncate-text.js';
import type { ApprovalView } from './approval-view.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';

/** The action ids the approval listeners register; every approval button carries one of these. */
export const APPROVAL_ACTION_IDS = {
  allow: 'holdfast.approval.allow',
  deny: 'holdfast.approval.deny',
  always: 'holdfast.approval.always',
  /** Opens the arguments in a form to edit before allowing. */
  edit: 'holdfast.approval.edit',
  /** Opens the whole arguments in a modal; decides nothing. */
  view: 'holdfast.approval.view',
} as const;

export type ApprovalActionKind = keyof typeof APPROVAL_ACTION_IDS;

/**
 * What a surface's buttons offer. `decide` only where the arguments were shown whole on that surface;
 * `view-first` where they were cut (the full view carries the decision); `deny-only` where nothing in
 * Slack can show them whole, so they cannot be allowed from Slack at all.
 */
export type ApprovalChoice = 'decide' | 'view-first' | 'deny-only';

const BLOCK_ID_PREFIX = 'holdfast.approval:';

/** Which approval button an `action_id` belongs to, or undefined for any other action. */
export function approvalActionKind(actionId: string): ApprovalActionKind | undefined {
  for (const kind of Object.keys(APPROVAL_ACTION_IDS) as ApprovalActionKind[]) {
    if (APPROVAL_ACTION_IDS[kind] === actionId) return kind;
  }
  return undefined;
}

/**
 * The actions block id for a request: `holdfast.approval:<request id>:<arguments fingerprint>`. Slack
 * echoes it with every click on the block's buttons, so a click says which arguments it was shown.
 */
export function approvalBlockId(requestId: string, argsFingerprint: string): string {
  return `${BLOCK_ID_PREFIX}${requestId}:${argsFingerprint}`;
}

export interface ParsedBlockId {
  readonly requestId: string;
  /** Undefined for a block id without one (cards posted before fingerprints existed). */
  readonly argsFingerprint: string | undefined;
}

/** The request id and fingerprint inside an approval actions block id; undefined for any other block. */
export function parseApprovalBlockId(blockId: string): ParsedBlockId | undefined {
  if (!blockId.startsWith(BLOCK_ID_PREFIX)) return undefined;
  const rest = blockId.slice(BLOCK_ID_PREFIX.length);
  const colon = rest.lastIndexOf(':');
  const fingerprint = colon === -1 ? '' : rest.slice(colon + 1);
  return isArgsFingerprint(fingerprint)
    ? { requestId: rest.slice(0, colon), argsFingerprint: fingerprint }
    : { requestId: rest, argsFingerprint: undefined };
}

function plain(text: string, max: number): { type: 'plain_text'; text: string; emoji: true } {
  return { type: 'plain_text', text: truncateText(text, max), emoji: true };
}

function toolCode(toolName: string): string {
  return `\`${escapeAndTruncate(inlineCodeSafe(toolName), 80)}\``;
}

/** A button on the request: every approval button is valued with the request id it decides. */
function requestButton(
  view: ApprovalView,
  kind: ApprovalActionKind,
  label: string,
  style?: Button['style'],
): Button {
  return {
    type: 'button',
    action_id: APPROVAL_ACTION_IDS[kind],
    text: plain(label, BLOCK_KIT_LIMITS.buttonText),
    ...(style ? { style } : {}),
    value: view.requestId,
  };
}

function allowButton(view: ApprovalView): Button {
  return {
    ...requestButton(view, 'allow', 'Allow', 'primary'),
    confirm: {
      title: plain(`Allow ${view.toolName}?`, BLOCK_KIT_LIMITS.confirmTitle),
      text: {
        type: 'mrkdwn',
        text: `${toolCode(view.toolName)} will run once with the arguments shown.`,
      },
      confirm: plain('Allow', BLOCK_KIT_LIMITS.confirmButton),
      deny: plain('Cancel', BLOCK_KIT_LIMITS.confirmButton),
    },
  };
}

function denyButton(view: ApprovalView): Button {
  return requestButton(view, 'deny', 'Deny', 'danger');
}

function alwaysButton(view: ApprovalView): Button {
  // No confirmation: the button opens a form saying what the grant covers, where and for how long.
  return requestButton(view, 'always', 'Always allow…');
}

function editButton(view: ApprovalView): Button {
  // No confirmation: the button opens the form, and the form's submit is the decision.
  return requestButton(view, 'edit', 'Edit…');
}

function viewButton(view: ApprovalView): Button {
  return requestButton(view, 'view', 'View full arguments', 'primary');
}

/**
 * The approval buttons, each valued with the request id, in a block whose id carries the arguments
 * fingerprint. Deciding: Allow (primary, confirmed), Deny (danger), Edit… (when the arguments fit a form),
 * Always allow….
 * Arguments cut short: View full arguments and Deny, since Allow and Always allow would run what the
 * approver has not seen.
 */
export function buildApprovalActions(view: ApprovalView, choice: ApprovalChoice): ActionsBlock {
  if (view.question) {
    // A question is answered in its own form, whatever the surface shows of it.
    const answer = requestButton(
      view,
      'edit',
      view.question === 'form' ? 'Answer…' : 'Open link…',
      'primary',
    );
    const decline = requestButton(view, 'deny', 'Decline');
    return {
      type: 'actions',
      block_id: approvalBlockId(view.requestId, view.argsFingerprint),
      elements: choice === 'deny-only' ? [decline] : [answer, decline],
    };
  }
  const elements: Button[] =
    choice === 'decide'
      ? [
          allowButton(view),
          denyButton(view),
          ...(view.editable ? [editButton(view)] : []),
          alwaysButton(view),
        ]
      : choice === 'view-first'
        ? [viewButton(view), denyButton(view)]
        : [denyButton(view)];
  return { type: 'actions', block_id: approvalBlockId(view.requestId, view.argsFingerprint), elements };
}
