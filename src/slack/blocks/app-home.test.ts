import type { HeaderBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { buildAppHome } from './app-home.js';
import type { ApprovalOutcome, ApprovalView } from './approval-view.js';
import { findBlockKitViolations } from './block-kit-limits.js';

function view(i: number): ApprovalView {
  return {
    requestId: `apr_${i}`,
    argsFingerprint: fingerprint,
    toolName: 'sql_write',
    permissionType: 'sql_write',
    summary: `update row ${i}`,
    argumentsJson: '{"sql": "UPDATE t SET a = 1"}',
    requestedBy: 'U123',
    createdAt: Date.UTC(2024, 4, 1, 14, 0),
    expiresAt: Date.UTC(2024, 4, 1, 15, 0),
    approverMentions: { users: [], groups: ['S1'] },
    channelId: 'C1',
  };
}

const fingerprint = '0123456789abcdef0123456789abcdef';
const at = Date.UTC(2024, 4, 1, 14, 10);
const allowed: ApprovalOutcome = { type: 'allowed', by: 'U2', at, always: false };

function headers(blocks: readonly { type: string }[]): string[] {
  return blocks
    .filter((block): block is HeaderBlock => block.type === 'header')
    .map((block) => block.text.text);
}

describe('buildAppHome', () => {
  it('shows empty states for both lists', () => {
    const home = buildAppHome({ pending: [], recent: [], viewer: 'U1' });
    expect(home.type).toBe('home');
    expect(home.blocks).toEqual([
      { type: 'header', text: { type: 'plain_text', text: 'Waiting for approval' } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: 'Nothing is waiting for approval that you can decide.' },
      },
      { type: 'divider' },
      { type: 'header', text: { type: 'plain_text', text: 'Recent decisions' } },
      { type: 'section', text: { type: 'mrkdwn', text: 'No decisions yet.' } },
    ]);
  });

  it('lists pending requests with buttons and recent decisions with who decided', () => {
    const home = buildAppHome({
      pending: [view(1)],
      recent: [{ view: view(2), outcome: allowed }],
      viewer: 'U1',
    });
    expect(headers(home.blocks)).toEqual(['Waiting for approval', 'Recent decisions']);
    expect(home.blocks.filter((block) => block.type === 'actions').map((block) => block.block_id)).toEqual([
      `holdfast.approval:apr_1:${fingerprint}`,
    ]);
    expect((home.blocks.at(-1) as SectionBlock).text?.text).toBe(
      '✅ Allowed by <@U2> at <!date^1714572600^{date_short_pretty} at {time}|2024-05-01T14:10:00Z>\n`sql_write` *update row 2*',
    );
  });

  it('stays within 100 blocks for long lists and says how many are not shown', () => {
    const pending = Array.from({ length: 200 }, (_, i) => view(i));
    const recent = Array.from({ length: 200 }, (_, i) => ({ view: view(i), outcome: allowed }));
    const home = buildAppHome({ pending, recent, viewer: 'U1' });
    expect(home.blocks.length).toBeLessThanOrEqual(100);
    expect(findBlockKitViolations(home)).toEqual([]);
    const notes = home.blocks
      .filter((block) => block.type === 'context')
      .map((block) => JSON.stringify(block))
      .filter((json) => json.includes('Showing'));
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain('of 200.');
    expect(notes[1]).toContain('Showing 20 of 200.');
  });

  it('caps history at the 20 latest decisions', () => {
    const recent = Array.from({ length: 30 }, (_, i) => ({ view: view(i), outcome: allowed }));
    const home = buildAppHome({ pending: [], recent, viewer: 'U1' });
    const decisions = home.blocks.filter(
      (block): block is SectionBlock =>
        block.type === 'section' && ((block as SectionBlock).text?.text.startsWith('✅') ?? false),
    );
    expect(decisions.map((block) => block.text?.text.split('\n')[1])).toEqual(
      recent.slice(0, 20).map((item) => `\`sql_write\` *${item.view.summary}*`),
    );
    expect(JSON.stringify(home.blocks.at(-1))).toContain('Showing 20 of 30.');
  });
});

describe('buildAppHome, with standing grants', () => {
  const grant = {
    id: 7,
    scope: 'channel' as const,
    scopeId: 'C1',
    toolName: 'ops_shell',
    createdBy: 'U1',
    createdAt: 0,
    sourceRequestId: null,
    match: { command: 'kubectl get *' },
    argsHash: null,
    expiresAt: Date.UTC(2024, 4, 1, 15, 0),
    usesLeft: 3,
  };

  it('lists the viewer’s grants with a confirmed Revoke button each', () => {
    const home = buildAppHome({ pending: [], recent: [], viewer: 'U1', grants: [{ grant, where: '<#C1>' }] });
    expect(headers(home.blocks)).toEqual([
      'Waiting for approval',
      'Recent decisions',
      'Your standing grants',
    ]);
    const line = home.blocks.at(-1) as SectionBlock;
    expect(line.text?.text).toContain('`ops_shell` `kubectl get *` · <#C1>');
    expect(line.text?.text).toContain('3 uses left');
    expect(line.accessory).toMatchObject({ action_id: 'holdfast.grant.revoke', value: '7', style: 'danger' });
    expect(findBlockKitViolations(home)).toEqual([]);
  });

  it('stays within 100 blocks with long lists of everything', () => {
    const pending = Array.from({ length: 200 }, (_, i) => view(i));
    const recent = Array.from({ length: 200 }, (_, i) => ({ view: view(i), outcome: allowed }));
    const grants = Array.from({ length: 50 }, (_, i) => ({ grant: { ...grant, id: i }, where: '<#C1>' }));
    const home = buildAppHome({ pending, recent, viewer: 'U1', grants });
    expect(home.blocks.length).toBeLessThanOrEqual(100);
    expect(JSON.stringify(home.blocks.at(-1))).toContain('Showing 10 of 50.');
  });
});
