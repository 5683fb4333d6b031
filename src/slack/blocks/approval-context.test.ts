import type { ActionsBlock, ContextBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { buildApprovalCard } from './approval-card.js';
import type { ApprovalView } from './approval-view.js';
import { buildApproverCopy } from './approver-copy.js';
import { findBlockKitViolations } from './block-kit-limits.js';

function view(overrides: Partial<ApprovalView> = {}): ApprovalView {
  return {
    requestId: 'apr_9f2c1e7b4d',
    argsFingerprint: '0123456789abcdef0123456789abcdef',
    toolName: 'run_shell',
    permissionType: 'shell',
    summary: 'run `df -h`',
    argumentsJson: JSON.stringify({ command: 'df -h' }, null, 2),
    requestedBy: 'U123',
    createdAt: Date.UTC(2024, 4, 1, 14, 30),
    expiresAt: Date.UTC(2024, 4, 1, 15, 30),
    approverMentions: { users: ['U900'], groups: [] },
    channelId: 'C1',
    ...overrides,
  };
}

function contextText(blocks: readonly { type: string }[]): string {
  const section = blocks.find(
    (block): block is SectionBlock =>
      block.type === 'section' && (block as SectionBlock).text?.text.startsWith('*Needs approval') === true,
  );
  return section?.text?.text ?? '';
}

function buttonIds(blocks: readonly { type: string }[]): string[] {
  return blocks
    .filter((block): block is ActionsBlock => block.type === 'actions')
    .flatMap((block) =>
      block.elements.map((element) => ('action_id' in element ? String(element.action_id) : '')),
    );
}

describe('the approval card’s decision context', () => {
  it('says a shell call asks by default, and where it runs and what it may change', () => {
    const card = buildApprovalCard(
      view({
        askedBecause: { type: 'tool-default' },
        effects: { workdir: '/srv/ops', host: 'ops-1', changes: 'files and processes on this host' },
      }),
    );

    expect(contextText(card.blocks).split('\n')).toEqual([
      '*Needs approval because* `run_shell` asks by default and no policy rule or grant allows this call.',
      '*Runs* in `/srv/ops` on host `ops-1`',
      '*May change:* files and processes on this host',
    ]);
  });

  it('names the policy rule that asked, with its patterns', () => {
    const card = buildApprovalCard(
      view({ askedBecause: { type: 'rule', tool: 'run_shell', match: { command: 'kubectl *' } } }),
    );

    expect(contextText(card.blocks)).toBe(
      '*Needs approval because* the policy rule for `run_shell` where command `kubectl *` asks for it.',
    );
  });

  it('shows a deploy’s service, ref and the exact configured command', () => {
    const card = buildApprovalCard(
      view({
        toolName: 'deploy',
        permissionType: 'deploy',
        argumentsJson: JSON.stringify({ service: 'api', ref: 'v1.2.3' }),
        askedBecause: { type: 'tool-default' },
        effects: {
          deploy: { service: 'api', ref: 'v1.2.3' },
          command: './deploy.sh api && echo <done>',
          workdir: '/srv/release',
          host: 'ops-1',
          changes: 'the running api service',
        },
      }),
    );

    const lines = contextText(card.blocks).split('\n');
    expect(lines[1]).toBe('*Deploys* `api` at ref `v1.2.3`');
    expect(lines[2]).toBe('*Command that runs:* `./deploy.sh api &amp;&amp; echo &lt;done&gt;`');
    expect(lines[3]).toBe('*Runs* in `/srv/release` on host `ops-1`');
  });

  it('says a deploy without a ref takes the service’s default', () => {
    const card = buildApprovalCard(
      view({
        askedBecause: { type: 'tool-default' },
        effects: { deploy: { service: 'api', ref: undefined } },
      }),
    );

    expect(contextText(card.blocks)).toContain('*Deploys* `api` at the service’s default ref');
  });

  it('leaves the section out when nothing is known, and stays within limits when all is long', () => {
    expect(contextText(buildApprovalCard(view()).blocks)).toBe('');
    const long = 'x'.repeat(5000);
    const card = buildApprovalCard(
      view({
        askedBecause: { type: 'rule', tool: long, match: { command: long } },
        effects: {
          workdir: long,
          host: long,
          command: long,
          changes: long,
          deploy: { service: long, ref: long },
        },
      }),
    );
    expect(findBlockKitViolations(card)).toEqual([]);
  });
});

describe('the buttons of a view made for one person', () => {
  it('shows every button to someone who may decide', () => {
    const card = buildApproverCopy(view({ viewerMay: 'decide' }), 'request');

    expect(buttonIds(card.blocks)).toEqual([
      'holdfast.approval.allow',
      'holdfast.approval.deny',
      'holdfast.approval.always',
    ]);
  });

  it('shows only Deny to the requester, who may withdraw but not allow', () => {
    const card = buildApproverCopy(view({ viewerMay: 'withdraw' }), 'request');

    expect(buttonIds(card.blocks)).toEqual(['holdfast.approval.deny']);
  });

  it('shows someone who may not decide the state and who decides, with no buttons', () => {
    const card = buildApproverCopy(view({ viewerMay: 'watch' }), 'escalation');

    expect(buttonIds(card.blocks)).toEqual([]);
    const last = card.blocks.at(-1) as ContextBlock;
    expect(last.type).toBe('context');
    expect(JSON.stringify(last.elements)).toContain(
      'Waiting for <@U900> to decide. You cannot decide this request.',
    );
  });

  it('keeps every button on a card many people see', () => {
    expect(buttonIds(buildApprovalCard(view()).blocks)).toHaveLength(3);
  });
});
