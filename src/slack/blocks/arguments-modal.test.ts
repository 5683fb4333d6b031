import type { ActionsBlock, Button, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { ApprovalView } from './approval-view.js';
import { buildArgumentsModal } from './arguments-modal.js';
import { findBlockKitViolations } from './block-kit-limits.js';

const fingerprint = '0123456789abcdef0123456789abcdef';

function view(argumentsJson: string): ApprovalView {
  return {
    requestId: 'apr_1',
    argsFingerprint: fingerprint,
    toolName: 'run_shell',
    permissionType: 'shell',
    summary: 'run a long script',
    argumentsJson,
    requestedBy: 'U1',
    createdAt: Date.UTC(2024, 4, 1, 14, 0),
    expiresAt: Date.UTC(2024, 4, 1, 15, 0),
    approverMentions: { users: ['U9'], groups: [] },
    channelId: 'C1',
  };
}

/** The code blocks' contents joined back together, with Slack's three entities decoded. */
function shownArguments(blocks: readonly { type: string }[]): string {
  return blocks
    .filter((block): block is SectionBlock => block.type === 'section')
    .map((block) => block.text?.text ?? '')
    .filter((text) => text.startsWith('```\n'))
    .map((text) => text.slice(4, -4))
    .join('')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

function buttons(blocks: readonly { type: string }[]): Button[] {
  const actions = blocks.filter((block): block is ActionsBlock => block.type === 'actions');
  expect(actions).toHaveLength(1);
  expect(actions[0]?.block_id).toBe(`holdfast.approval:apr_1:${fingerprint}`);
  return actions[0]?.elements as Button[];
}

describe('buildArgumentsModal', () => {
  it('shows every character of long arguments, then the decision bound to the same fingerprint', () => {
    const args = JSON.stringify({ script: `echo '<a & b>'; ${'x'.repeat(9000)}; rm -rf /tmp/old` }, null, 2);
    const modal = buildArgumentsModal(view(args), { replyTo: { channel: 'C1', threadTs: '1.2' } });

    expect(modal.type).toBe('modal');
    expect(shownArguments(modal.blocks)).toBe(args);
    expect(buttons(modal.blocks).map((button) => button.action_id)).toEqual([
      'holdfast.approval.allow',
      'holdfast.approval.deny',
      'holdfast.approval.always',
    ]);
    expect(JSON.parse(modal.private_metadata ?? '')).toEqual({ channel: 'C1', threadTs: '1.2' });
    expect(findBlockKitViolations(modal)).toEqual([]);
  });

  it('offers only Deny for arguments too long to show even here, and says why', () => {
    const modal = buildArgumentsModal(view(JSON.stringify({ blob: 'y'.repeat(60_000) })));

    expect(buttons(modal.blocks).map((button) => button.action_id)).toEqual(['holdfast.approval.deny']);
    expect(JSON.stringify(modal.blocks)).toContain('cannot be allowed here');
    expect(findBlockKitViolations(modal)).toEqual([]);
  });

  it('shows invisible and bidirectional characters escaped', () => {
    const modal = buildArgumentsModal(view(JSON.stringify({ command: 'ls \u202Etxt.exe\u2069 \u200B' })));

    expect(shownArguments(modal.blocks)).toBe('{"command":"ls \\u202Etxt.exe\\u2069 \\u200B"}');
    expect(JSON.stringify(modal)).not.toMatch(/[\u200B\u202E\u2069]/);
  });
});
