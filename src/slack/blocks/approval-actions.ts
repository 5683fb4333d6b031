import type { ActionsBlock, Button } from '@slack/types';
import { inlineCodeSafe } from '../text/escape-mrkdwn.js';
import { escapeAndTruncate, truncateText } from '../text/truncate-text.js';
import type { ApprovalView } from './approval-view.js';
import { BLOCK_KIT_LIMITS } from './block-kit-limits.js';

/** The action ids the approval listeners register; every approval button carries one of these. */
export const APPROVAL_ACTION_IDS = {
  allow: 'holdfast.approval.allow',
  deny: 'holdfast.approval.deny',
  always: 'holdfast.approval.always',
} as const;

export type ApprovalActionKind = keyof typeof APPROVAL_ACTION_IDS;

const BLOCK_ID_PREFIX = 'holdfast.approval:';

/** Which approval button an `action_id` belongs to, or undefined for any other action. */
export function approvalActionKind(actionId: string): ApprovalActionKind | undefined {
  for (const kind of Object.keys(APPROVAL_ACTION_IDS) as ApprovalActionKind[]) {
    if (APPROVAL_ACTION_IDS[kind] === actionId) return kind;
  }
  return undefined;
}

/** The actions block id for a request: lets a listener match the block before reading the value. */
export function approvalBlockId(requestId: string): string {
  return `${BLOCK_ID_PREFIX}${requestId}`.slice(0, BLOCK_KIT_LIMITS.blockId);
}

/** The request id inside an approval actions block id, or undefined for any other block. */
export function requestIdFromBlockId(blockId: string): string | undefined {
  return blockId.startsWith(BLOCK_ID_PREFIX) ? blockId.slice(BLOCK_ID_PREFIX.length) : undefined;
}

function plain(text: string, max: number): { type: 'plain_text'; text: string; emoji: true } {
  return { type: 'plain_text', text: truncateText(text, max), emoji: true };
}

function toolCode(toolName: string): string {
  return `\`${escapeAndTruncate(inlineCodeSafe(toolName), 80)}\``;
}

function allowButton(view: ApprovalView): Button {
  return {
    type: 'button',
    action_id: APPROVAL_ACTION_IDS.allow,
    text: plain('Allow', BLOCK_KIT_LIMITS.buttonText),
    style: 'primary',
    value: view.requestId,
    confirm: {
      title: plain(`Allow ${view.toolName}?`, BLOCK_KIT_LIMITS.confirmTitle),
      text: {
        type: 'mrkdwn',
        text: `${toolCode(view.toolName)} will run once with the arguments shown on the card.`,
      },
      confirm: plain('Allow', BLOCK_KIT_LIMITS.confirmButton),
      deny: plain('Cancel', BLOCK_KIT_LIMITS.confirmButton),
    },
  };
}

function denyButton(view: ApprovalView): Button {
  return {
    type: 'button',
    action_id: APPROVAL_ACTION_IDS.deny,
    text: plain('Deny', BLOCK_KIT_LIMITS.buttonText),
    style: 'danger',
    value: view.requestId,
  };
}

function alwaysButton(view: ApprovalView): Button {
  // A standing grant is wider than one run, so it gets its own confirmation too.
  return {
    type: 'button',
    action_id: APPROVAL_ACTION_IDS.always,
    text: plain('Always allow in this thread', BLOCK_KIT_LIMITS.buttonText),
    value: view.requestId,
    confirm: {
      title: plain(`Always allow ${view.toolName}?`, BLOCK_KIT_LIMITS.confirmTitle),
      text: {
        type: 'mrkdwn',
        text: `This call runs now, and later ${toolCode(view.toolName)} calls in this thread run without asking.`,
      },
      confirm: plain('Always allow', BLOCK_KIT_LIMITS.confirmButton),
      deny: plain('Cancel', BLOCK_KIT_LIMITS.confirmButton),
    },
  };
}

/** Allow (primary, confirmed), Deny (danger), Always allow in this thread; each value is the request id. */
export function buildApprovalActions(view: ApprovalView): ActionsBlock {
  return {
    type: 'actions',
    block_id: approvalBlockId(view.requestId),
    elements: [allowButton(view), denyButton(view), alwaysButton(view)],
  };
}
