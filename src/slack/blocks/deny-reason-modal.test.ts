import type { InputBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { ApprovalView } from './approval-view.js';
import { findBlockKitViolations } from './block-kit-limits.js';
import { buildDenyReasonModal, DENY_REASON_BLOCK_ID, DENY_REASON_CALLBACK_ID } from './deny-reason-modal.js';
import { describeOutcome } from './describe-outcome.js';

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
};

describe('buildDenyReasonModal', () => {
  it('asks for an optional reason, submits as Deny and carries the click in its metadata', () => {
    const modal = buildDenyReasonModal(view, '{"requestId":"apr_1"}');
    expect(modal).toMatchObject({
      type: 'modal',
      callback_id: DENY_REASON_CALLBACK_ID,
      submit: { text: 'Deny' },
      close: { text: 'Cancel' },
      private_metadata: '{"requestId":"apr_1"}',
    });
    const input = modal.blocks.find((block): block is InputBlock => block.type === 'input');
    expect(input).toMatchObject({
      block_id: DENY_REASON_BLOCK_ID,
      optional: true,
      element: { type: 'plain_text_input', multiline: true, max_length: 500 },
    });
    const section = modal.blocks[0] as SectionBlock;
    expect(section.text?.text).toContain('`run_shell`');
    expect(findBlockKitViolations(modal)).toEqual([]);
  });
});

describe('describeOutcome for a denial', () => {
  const at = Date.UTC(2024, 4, 1, 14, 30);

  it('quotes the reason on one line, escaped', () => {
    const words = describeOutcome({ type: 'denied', by: 'U2', at, reason: 'not now\n<!channel> & later' });
    expect(words.line).toMatch(/^⛔ Denied by <@U2> at .*: “not now &lt;!channel&gt; &amp; later”$/);
    expect(words.fallback).toBe('Denied by <@U2> (“not now &lt;!channel&gt; &amp; later”)');
  });

  it('says only who denied when no reason was given', () => {
    expect(describeOutcome({ type: 'denied', by: 'U2', at }).fallback).toBe('Denied by <@U2>');
  });
});
