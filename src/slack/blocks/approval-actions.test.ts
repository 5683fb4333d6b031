import type { Button } from '@slack/types';
import { describe, expect, it } from 'vitest';
import {
  APPROVAL_ACTION_IDS,
  approvalActionKind,
  approvalBlockId,
  buildApprovalActions,
  parseApprovalBlockId,
} from './approval-actions.js';
import type { ApprovalView } from './approval-view.js';

const fingerprint = '0123456789abcdef0123456789abcdef';

const view: ApprovalView = {
  requestId: 'apr_1',
  argsFingerprint: fingerprint,
  toolName: 'run_shell',
  permissionType: 'shell',
  summary: 'run `df -h`',
  argumentsJson: '{"command": "df -h"}',
  requestedBy: 'U1',
  createdAt: 0,
  expiresAt: 1,
  approverMentions: { users: [], groups: [] },
  channelId: 'C1',
};

describe('approval action ids', () => {
  it('maps each action id back to its kind', () => {
    expect(approvalActionKind(APPROVAL_ACTION_IDS.allow)).toBe('allow');
    expect(approvalActionKind(APPROVAL_ACTION_IDS.deny)).toBe('deny');
    expect(approvalActionKind(APPROVAL_ACTION_IDS.always)).toBe('always');
    expect(approvalActionKind(APPROVAL_ACTION_IDS.view)).toBe('view');
    expect(approvalActionKind('something.else')).toBeUndefined();
  });

  it('round-trips a request id and its arguments fingerprint through the actions block id', () => {
    expect(approvalBlockId('apr_1', fingerprint)).toBe(`holdfast.approval:apr_1:${fingerprint}`);
    expect(parseApprovalBlockId(approvalBlockId('apr_1', fingerprint))).toEqual({
      requestId: 'apr_1',
      argsFingerprint: fingerprint,
    });
    expect(parseApprovalBlockId('other-block')).toBeUndefined();
  });

  it('reads a block id without a fingerprint as one that names none', () => {
    expect(parseApprovalBlockId('holdfast.approval:apr_1')).toEqual({
      requestId: 'apr_1',
      argsFingerprint: undefined,
    });
    expect(parseApprovalBlockId('holdfast.approval:apr_1:not-a-fingerprint')).toEqual({
      requestId: 'apr_1:not-a-fingerprint',
      argsFingerprint: undefined,
    });
  });
});

describe('buildApprovalActions', () => {
  const ids = (choice: Parameters<typeof buildApprovalActions>[1]) =>
    (buildApprovalActions(view, choice).elements as Button[]).map((button) => button.action_id);

  it('offers the decision only where the arguments were shown whole', () => {
    expect(ids('decide')).toEqual([
      APPROVAL_ACTION_IDS.allow,
      APPROVAL_ACTION_IDS.deny,
      APPROVAL_ACTION_IDS.always,
    ]);
    expect(ids('view-first')).toEqual([APPROVAL_ACTION_IDS.view, APPROVAL_ACTION_IDS.deny]);
    expect(ids('deny-only')).toEqual([APPROVAL_ACTION_IDS.deny]);
  });

  it('binds every button to the request id and the arguments fingerprint', () => {
    for (const choice of ['decide', 'view-first', 'deny-only'] as const) {
      const block = buildApprovalActions(view, choice);
      expect(block.block_id).toBe(`holdfast.approval:apr_1:${fingerprint}`);
      expect((block.elements as Button[]).every((button) => button.value === 'apr_1')).toBe(true);
    }
  });
});

describe('the buttons of a question put to a requester', () => {
  it('are Answer… (or Open link…) and Decline on every surface, never Allow or Always allow', () => {
    const labels = (block: { elements: unknown[] }) =>
      (block.elements as Button[]).map((button) => [button.action_id, button.text.text]);
    expect(labels(buildApprovalActions({ ...view, question: 'form' }, 'decide'))).toEqual([
      ['holdfast.approval.edit', 'Answer…'],
      ['holdfast.approval.deny', 'Decline'],
    ]);
    expect(labels(buildApprovalActions({ ...view, question: 'link' }, 'view-first'))).toEqual([
      ['holdfast.approval.edit', 'Open link…'],
      ['holdfast.approval.deny', 'Decline'],
    ]);
    expect(labels(buildApprovalActions({ ...view, question: 'form' }, 'deny-only'))).toEqual([
      ['holdfast.approval.deny', 'Decline'],
    ]);
  });
});
