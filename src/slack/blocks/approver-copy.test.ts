import type { ActionsBlock, Button, ContextBlock, HeaderBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { ApprovalView } from './approval-view.js';
import { buildApproverCopy } from './approver-copy.js';
import { findBlockKitViolations } from './block-kit-limits.js';

const view: ApprovalView = {
  requestId: 'apr_9f2c1e7b4d',
  argsFingerprint: '0123456789abcdef0123456789abcdef',
  toolName: 'run_shell',
  permissionType: 'shell',
  summary: 'run `df -h`',
  argumentsJson: JSON.stringify({ command: 'df -h' }, null, 2),
  requestedBy: 'U123',
  createdAt: Date.UTC(2024, 4, 1, 14, 30),
  expiresAt: Date.UTC(2024, 4, 1, 15, 30),
  approverMentions: { users: ['U900'], groups: ['S100'] },
  threadLink: 'https://example.slack.com/archives/C1/p1714573800000100',
  channelId: 'C1',
};

describe('buildApproverCopy', () => {
  it('carries the request and its buttons, and says where it was asked', () => {
    const copy = buildApproverCopy(view, 'request');
    expect((copy.blocks[0] as HeaderBlock).text.text).toBe('Approval needed');
    expect(JSON.stringify((copy.blocks[1] as ContextBlock).elements)).toContain('<#C1>');
    expect(JSON.stringify((copy.blocks[1] as ContextBlock).elements)).toContain(view.threadLink);
    const actions = copy.blocks.find((block): block is ActionsBlock => block.type === 'actions');
    expect(actions?.elements.map((button) => (button as Button).value)).toEqual([
      view.requestId,
      view.requestId,
      view.requestId,
    ]);
    expect(findBlockKitViolations(copy)).toEqual([]);
  });

  it('leads a notification with the occasion and mentions nobody in it', () => {
    expect(buildApproverCopy(view, 'request').text).toBe(
      'Approval needed: run_shell `df -h` requested by <@U123> in <#C1>',
    );
    expect(buildApproverCopy(view, 'reminder').text).toMatch(/^Reminder: approval still needed: /);
    expect(buildApproverCopy(view, 'escalation').text).toMatch(/^Escalated: nobody has decided: /);
    expect(buildApproverCopy(view, 'escalation').text).not.toContain('U900');
  });

  it('tells an escalation who has not decided and when it expires', () => {
    const line = JSON.stringify((buildApproverCopy(view, 'escalation').blocks[1] as ContextBlock).elements);
    expect(line).toContain('nobody has decided (approvers: <@U900> <!subteam^S100>)');
    expect(line).toContain('<!date^1714577400^');
  });
});
