import type { ActionsBlock, Button, ContextBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { buildApprovalInbox } from './approval-inbox.js';
import type { ApprovalView } from './approval-view.js';
import { findBlockKitViolations } from './block-kit-limits.js';

function view(i: number, overrides: Partial<ApprovalView> = {}): ApprovalView {
  return {
    requestId: `apr_${i}`,
    argsFingerprint: fingerprint,
    toolName: 'deploy',
    permissionType: 'deploy',
    summary: `deploy build ${i} to staging`,
    argumentsJson: '{"env": "staging"}',
    requestedBy: 'U123',
    createdAt: Date.UTC(2024, 4, 1, 14, 0),
    expiresAt: Date.UTC(2024, 4, 1, 15, 0),
    approverMentions: { users: ['U900'], groups: [] },
    threadLink: `https://acme.slack.com/archives/C1/p171457${i}?thread_ts=1.2&cid=C1`,
    channelId: 'C1',
    ...overrides,
  };
}

const fingerprint = '0123456789abcdef0123456789abcdef';
const expires = '<!date^1714575600^{date_short_pretty} at {time}|2024-05-01T15:00:00Z>';
const asked = '<!date^1714572000^{ago}|2024-05-01T14:00:00Z>';

describe('buildApprovalInbox', () => {
  it('says nothing is waiting in this channel', () => {
    const inbox = buildApprovalInbox([], { scope: 'channel', viewer: 'U1' });
    expect(inbox).toEqual({
      text: 'Nothing is waiting for approval in this channel.',
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: 'Nothing is waiting for approval in this channel.' },
        },
      ],
    });
  });

  it('says nothing is waiting that the viewer can decide', () => {
    expect(buildApprovalInbox([], { scope: 'all', viewer: 'U1' }).text).toBe(
      'Nothing is waiting for approval that you can decide.',
    );
  });

  it('lists each entry linked to its thread, with the three buttons', () => {
    const inbox = buildApprovalInbox([view(1)], { scope: 'channel', viewer: 'U1' });
    expect(inbox.text).toBe('1 approval waiting in this channel.');
    expect(inbox.blocks.map((block) => block.type)).toEqual(['section', 'section', 'actions']);
    expect((inbox.blocks[0] as SectionBlock).text?.text).toBe('*1 approval waiting in this channel*');
    expect((inbox.blocks[1] as SectionBlock).text?.text).toBe(
      `*<https://acme.slack.com/archives/C1/p1714571?thread_ts=1.2&amp;cid=C1|deploy build 1 to staging>*\n` +
        '```\n{"env":"staging"}\n```\n' +
        `<#C1> · requested by <@U123> · asked ${asked} · expires ${expires}\n` +
        '`deploy` · deploy',
    );
    const actions = inbox.blocks[2] as ActionsBlock;
    expect(actions.block_id).toBe(`holdfast.approval:apr_1:${fingerprint}`);
    expect((actions.elements as Button[]).map((button) => [button.action_id, button.value])).toEqual([
      ['holdfast.approval.allow', 'apr_1'],
      ['holdfast.approval.deny', 'apr_1'],
      ['holdfast.approval.always', 'apr_1'],
    ]);
  });

  it('puts a divider between requests and what waits on the viewer first, saying so', () => {
    const inbox = buildApprovalInbox(
      [view(1, { viewerMay: 'watch' }), view(2, { viewerMay: 'decide' }), view(3, { viewerMay: 'withdraw' })],
      { scope: 'channel', viewer: 'U1' },
    );

    expect(inbox.blocks.map((block) => block.type)).toEqual([
      'section',
      'section',
      'actions',
      'divider',
      'section',
      'context',
      'divider',
      'section',
      'actions',
    ]);
    const texts = inbox.blocks
      .filter((block): block is SectionBlock => block.type === 'section')
      .map((block) => block.text?.text ?? '');
    expect(texts[1]).toContain('deploy build 2');
    expect(texts[1]).toContain('\n*Waiting on you* · <#C1>');
    expect(texts[2]).toContain('deploy build 1');
    expect(texts[2]).not.toContain('Waiting on you');
    expect(texts[3]).toContain('deploy build 3');
    expect((inbox.blocks[8] as ActionsBlock).elements.map((button) => (button as Button).action_id)).toEqual([
      'holdfast.approval.deny',
    ]);
  });

  it('tells identical requests apart by a short ref, and leaves it off a request that is the only one', () => {
    const same = { summary: 'restart web', argumentsJson: '{"command":"systemctl restart web"}' };
    const inbox = buildApprovalInbox(
      [
        view(1, { ...same, requestId: 'apr_Xa1b2c3' }),
        view(2, { ...same, requestId: 'apr_Yd4e5f6' }),
        view(3, { requestId: 'apr_Zq9q9q9' }),
      ],
      { scope: 'channel', viewer: 'U1' },
    );

    const metas = inbox.blocks
      .filter((block): block is SectionBlock => block.type === 'section')
      .slice(1)
      .map((block) => block.text?.text.split('\n').at(-1));
    expect(metas).toEqual([
      '`deploy` · deploy · ref `1b2c3`',
      '`deploy` · deploy · ref `4e5f6`',
      '`deploy` · deploy',
    ]);
  });

  it('offers View full arguments instead of Allow for arguments longer than an entry shows', () => {
    const long = view(1, { argumentsJson: JSON.stringify({ env: 'staging', note: 'n'.repeat(400) }) });
    const inbox = buildApprovalInbox([long], { scope: 'channel', viewer: 'U1' });
    expect((inbox.blocks[1] as SectionBlock).text?.text).toContain('more characters)_');
    const actions = inbox.blocks[2] as ActionsBlock;
    expect((actions.elements as Button[]).map((button) => button.action_id)).toEqual([
      'holdfast.approval.view',
      'holdfast.approval.deny',
    ]);
  });

  it('marks the viewer’s own requests and shows quorum progress', () => {
    const inbox = buildApprovalInbox([view(1, { quorum: { required: 2, approvedBy: ['U5'] } })], {
      scope: 'all',
      viewer: 'U123',
    });
    const text = (inbox.blocks[1] as SectionBlock).text?.text ?? '';
    expect(text).toContain('requested by <@U123> (you)');
    expect(text.endsWith('· 1 of 2 approvals')).toBe(true);
  });

  it('escapes summaries and keeps an unlinked title when there is no permalink', () => {
    const inbox = buildApprovalInbox([view(1, { summary: 'drop <table> | & more', threadLink: undefined })], {
      scope: 'channel',
      viewer: 'U1',
    });
    expect((inbox.blocks[1] as SectionBlock).text?.text.split('\n')[0]).toBe(
      '*drop &lt;table&gt; | &amp; more*',
    );
  });

  it('keeps a pipe in a linked summary from breaking the link', () => {
    const inbox = buildApprovalInbox([view(1, { summary: 'a | b' })], { scope: 'channel', viewer: 'U1' });
    expect((inbox.blocks[1] as SectionBlock).text?.text).toContain('|a ¦ b>*');
  });

  it('shows the first entries of 200 within message limits and says how many more wait', () => {
    const entries = Array.from({ length: 200 }, (_, i) => view(i));
    const inbox = buildApprovalInbox(entries, { scope: 'all', viewer: 'U1', truncatedCount: 50 });
    expect(findBlockKitViolations(inbox)).toEqual([]);
    expect(inbox.text).toBe('250 approvals waiting that you can decide.');
    const shown = inbox.blocks.filter((block) => block.type === 'actions').length;
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThanOrEqual(24);
    expect((inbox.blocks.at(-1) as ContextBlock).elements[0]).toEqual({
      type: 'mrkdwn',
      text: `Showing ${shown} of 250: ${250 - shown} more wait.`,
    });
    const firstIds = inbox.blocks.filter((block) => block.type === 'actions').map((block) => block.block_id);
    expect(firstIds).toEqual(
      entries.slice(0, shown).map((entry) => `holdfast.approval:${entry.requestId}:${fingerprint}`),
    );
  });

  it('counts entries the caller left out even when none are passed', () => {
    const inbox = buildApprovalInbox([], { scope: 'channel', viewer: 'U1', truncatedCount: 3 });
    expect(inbox.text).toBe('3 approvals waiting in this channel.');
    expect(findBlockKitViolations(inbox)).toEqual([]);
  });

  it('stays within limits when every summary is huge', () => {
    const entries = Array.from({ length: 60 }, (_, i) =>
      view(i, { summary: '<&>'.repeat(5000), toolName: 't'.repeat(900) }),
    );
    expect(findBlockKitViolations(buildApprovalInbox(entries, { scope: 'all', viewer: 'U1' }))).toEqual([]);
  });
});
