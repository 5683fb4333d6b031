import { describe, expect, it } from 'vitest';
import {
  APPROVAL_ACTION_IDS,
  approvalActionKind,
  approvalBlockId,
  requestIdFromBlockId,
} from './approval-actions.js';

describe('approval action ids', () => {
  it('maps each action id back to its kind', () => {
    expect(approvalActionKind(APPROVAL_ACTION_IDS.allow)).toBe('allow');
    expect(approvalActionKind(APPROVAL_ACTION_IDS.deny)).toBe('deny');
    expect(approvalActionKind(APPROVAL_ACTION_IDS.always)).toBe('always');
    expect(approvalActionKind('something.else')).toBeUndefined();
  });

  it('round-trips a request id through the actions block id', () => {
    expect(approvalBlockId('apr_1')).toBe('holdfast.approval:apr_1');
    expect(requestIdFromBlockId(approvalBlockId('apr_1'))).toBe('apr_1');
    expect(requestIdFromBlockId('other-block')).toBeUndefined();
  });
});
