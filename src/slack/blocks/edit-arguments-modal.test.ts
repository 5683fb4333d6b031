import type { InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { buildApprovalCard } from './approval-card.js';
import type { ApprovalView } from './approval-view.js';
import { findBlockKitViolations } from './block-kit-limits.js';
import { buildEditArgumentsModal, EDIT_CALLBACK_ID } from './edit-arguments-modal.js';

const view: ApprovalView = {
  requestId: 'apr_1',
  argsFingerprint: '0123456789abcdef0123456789abcdef',
  toolName: 'run_shell',
  permissionType: 'shell',
  summary: 'run `systemctl restart web`',
  argumentsJson: '{"command":"systemctl restart web"}',
  requestedBy: 'U1',
  createdAt: Date.UTC(2024, 4, 1, 14, 0),
  expiresAt: Date.UTC(2024, 4, 1, 15, 0),
  approverMentions: { users: ['U9'], groups: [] },
  channelId: 'C1',
  editable: true,
};

describe('buildEditArgumentsModal', () => {
  it('holds one prefilled input per argument, shows a kept secret redacted, and submits as Allow edited', () => {
    const modal = buildEditArgumentsModal(
      view,
      [
        {
          name: 'command',
          blockId: 'holdfast.edit.0',
          kind: 'text',
          initial: 'systemctl restart web',
          multiline: false,
        },
        {
          name: 'env',
          blockId: 'holdfast.edit.1',
          kind: 'kept',
          initial: '[redacted slack token]',
          multiline: false,
        },
      ],
      { metadata: '{"requestId":"apr_1"}', actionId: 'value' },
    );
    expect(modal).toMatchObject({
      callback_id: EDIT_CALLBACK_ID,
      submit: { text: 'Allow edited' },
      private_metadata: '{"requestId":"apr_1"}',
    });
    const inputs = modal.blocks.filter((block): block is InputBlock => block.type === 'input');
    expect(inputs).toEqual([
      expect.objectContaining({
        block_id: 'holdfast.edit.0',
        element: expect.objectContaining({ action_id: 'value', initial_value: 'systemctl restart web' }),
      }),
    ]);
    expect(JSON.stringify(modal.blocks)).toContain('holds a secret, so it is kept as it is');
    expect(findBlockKitViolations(modal)).toEqual([]);
  });
});

describe('the card of an edited request', () => {
  it('says who edited it and what was proposed, and offers Edit… while it is editable', () => {
    const card = buildApprovalCard({
      ...view,
      edited: { by: 'U2', proposedJson: '{"command":"systemctl restart web"}' },
      argumentsJson: '{"command":"systemctl status web"}',
    });
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('Arguments edited by <@U2>. Proposed: `systemctl restart web`');
    expect(text).toContain('holdfast.approval.edit');
    expect(JSON.stringify(buildApprovalCard({ ...view, editable: false }).blocks)).not.toContain(
      'holdfast.approval.edit',
    );
  });
});
