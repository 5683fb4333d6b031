import type { ActionsBlock, Button, HeaderBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { ApprovalView } from './approval-view.js';
import { findBlockKitViolations } from './block-kit-limits.js';
import { buildPlanCard, PLAN_ALLOW_ALL_ACTION_ID, parseAllowAllValue, taskName } from './plan-card.js';

const fingerprint = '0123456789abcdef0123456789abcdef';

function view(i: number, command: string, overrides: Partial<ApprovalView> = {}): ApprovalView {
  return {
    requestId: `apr_${i}`,
    argsFingerprint: fingerprint,
    toolName: 'run_shell',
    permissionType: 'shell',
    summary: `run \`${command}\``,
    argumentsJson: JSON.stringify({ command }, null, 2),
    requestedBy: 'U123',
    createdAt: Date.UTC(2024, 4, 1, 14, 0),
    expiresAt: Date.UTC(2024, 4, 1, 15, 0) + i,
    approverMentions: { users: ['U900'], groups: [] },
    channelId: 'C1',
    ...overrides,
  };
}

const plan = [view(1, 'df -h'), view(2, 'uptime'), view(3, 'rm -rf build')];

function actions(blocks: readonly { type: string }[]): ActionsBlock[] {
  return blocks.filter((block): block is ActionsBlock => block.type === 'actions');
}

describe('buildPlanCard', () => {
  it('lists each call as a task named by what it runs, with its own buttons, and says nothing runs yet', () => {
    const card = buildPlanCard(plan.map((item) => ({ view: item })));

    expect((card.blocks[0] as HeaderBlock).text.text).toBe('Approval needed: a plan of 3 calls');
    expect((card.blocks[1] as SectionBlock).text?.text).toBe(
      '*Nothing runs until every call is decided.* 0 of 3 decided.',
    );
    const sections = card.blocks.filter((block): block is SectionBlock => block.type === 'section').slice(1);
    expect(sections.map((section) => section.text?.text.split('\n')[0])).toEqual([
      '*1.* `run_shell: df -h`',
      '*2.* `run_shell: uptime`',
      '*3.* `run_shell: rm -rf build`',
    ]);
    const blocks = actions(card.blocks);
    expect(blocks.map((block) => block.block_id)).toEqual([
      `holdfast.approval:apr_1:${fingerprint}`,
      `holdfast.approval:apr_2:${fingerprint}`,
      `holdfast.approval:apr_3:${fingerprint}`,
      'holdfast.plan:apr_1',
    ]);
    expect(card.text).toBe(
      'Approval needed: a plan of 3 calls requested by <@U123> (df -h, uptime, rm -rf build) (approvers: <@U900>)',
    );
    expect(findBlockKitViolations(card)).toEqual([]);
  });

  it('offers Allow all with every waiting call’s request and fingerprint, confirmed', () => {
    const card = buildPlanCard(plan.map((item) => ({ view: item })));

    const allowAll = actions(card.blocks).at(-1)?.elements[0] as Button;
    expect(allowAll.action_id).toBe(PLAN_ALLOW_ALL_ACTION_ID);
    expect(allowAll.text.text).toBe('Allow all 3');
    expect(allowAll.confirm?.title?.text).toBe('Allow all 3 calls?');
    expect(parseAllowAllValue(allowAll.value ?? '')).toEqual(
      ['apr_1', 'apr_2', 'apr_3'].map((requestId) => ({ requestId, argsFingerprint: fingerprint })),
    );
  });

  it('after one decision shows who decided it, keeps the others’ buttons, and Allow all covers the rest', () => {
    const card = buildPlanCard([
      { view: plan[0] as ApprovalView },
      {
        view: plan[1] as ApprovalView,
        outcome: { type: 'denied', by: 'U900', at: Date.UTC(2024, 4, 1, 14, 5) },
      },
      { view: plan[2] as ApprovalView },
    ]);

    expect((card.blocks[1] as SectionBlock).text?.text).toContain('1 of 3 decided.');
    expect(JSON.stringify(card.blocks)).toContain('⛔ Denied by <@U900>');
    const ids = actions(card.blocks).map((block) => block.block_id);
    expect(ids).toEqual([
      `holdfast.approval:apr_1:${fingerprint}`,
      `holdfast.approval:apr_3:${fingerprint}`,
      'holdfast.plan:apr_1',
    ]);
    const allowAll = actions(card.blocks).at(-1)?.elements[0] as Button;
    expect(allowAll.text.text).toBe('Allow all 2');
    expect(parseAllowAllValue(allowAll.value ?? '').map((call) => call.requestId)).toEqual([
      'apr_1',
      'apr_3',
    ]);
  });

  it('has no buttons once every call is decided', () => {
    const at = Date.UTC(2024, 4, 1, 14, 5);
    const card = buildPlanCard(
      plan.map((item) => ({ view: item, outcome: { type: 'allowed', by: 'U900', at, always: false } })),
    );

    expect(actions(card.blocks)).toEqual([]);
    expect(card.text).toBe('Plan of 3 calls decided: df -h, uptime, rm -rf build');
  });

  it('leaves Allow all off when a call’s arguments are too long to show whole', () => {
    const long = view(4, 'x'.repeat(2000));
    const card = buildPlanCard([{ view: plan[0] as ApprovalView }, { view: long }]);

    expect(actions(card.blocks).map((block) => block.block_id)).not.toContain('holdfast.plan:apr_1');
    const second = actions(card.blocks)[1]?.elements[0] as Button | undefined;
    expect(second?.action_id).toBe('holdfast.approval.view');
    expect(findBlockKitViolations(card)).toEqual([]);
  });

  it('names a task by its tool alone when it has no arguments', () => {
    expect(taskName(view(1, '', { argumentsJson: '{}' }))).toBe('`run_shell: {}`');
  });
});

describe('parseAllowAllValue', () => {
  it('refuses a value with a malformed pair, or only one call', () => {
    expect(parseAllowAllValue(`apr_1:${fingerprint} apr_2:nothex`)).toEqual([]);
    expect(parseAllowAllValue(`apr_1:${fingerprint}`)).toEqual([]);
  });
});
