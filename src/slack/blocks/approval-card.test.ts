import type { ActionsBlock, Button, ContextBlock, HeaderBlock, SectionBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { buildApprovalCard, buildDecidedCard } from './approval-card.js';
import type { ApprovalView } from './approval-view.js';
import { findBlockKitViolations } from './block-kit-limits.js';

const createdAt = Date.UTC(2024, 4, 1, 14, 30);
const expiresAt = Date.UTC(2024, 4, 1, 15, 30);

function view(overrides: Partial<ApprovalView> = {}): ApprovalView {
  return {
    requestId: 'apr_9f2c1e7b4d',
    argsFingerprint: '0123456789abcdef0123456789abcdef',
    toolName: 'run_shell',
    permissionType: 'shell',
    summary: 'run `df -h`',
    argumentsJson: JSON.stringify({ command: 'df -h' }, null, 2),
    requestedBy: 'U123',
    reason: 'The user asked how full the disk is.',
    createdAt,
    expiresAt,
    approverMentions: { users: ['U900'], groups: ['S100'] },
    channelId: 'C1',
    ...overrides,
  };
}

function blockOf<T>(blocks: readonly { type: string }[], type: string): T {
  const found = blocks.filter((block) => block.type === type);
  expect(found).toHaveLength(1);
  return found[0] as T;
}

function argumentsText(blocks: readonly { type: string }[]): string {
  const section = blocks.find(
    (block): block is SectionBlock =>
      block.type === 'section' && (block as SectionBlock).text?.text.startsWith('*Arguments*') === true,
  );
  return section?.text?.text ?? '';
}

describe('buildApprovalCard', () => {
  it('lays out header, summary with fields, arguments, context and actions', () => {
    const card = buildApprovalCard(view());
    expect(card.blocks.map((block) => block.type)).toEqual([
      'header',
      'section',
      'section',
      'context',
      'actions',
    ]);
    expect(blockOf<HeaderBlock>(card.blocks, 'header').text.text).toBe('Approval needed');
    const summary = card.blocks[1] as SectionBlock;
    expect(summary.text?.text).toBe('run `df -h`\n*Why:* The user asked how full the disk is.');
    expect(summary.fields?.map((field) => field.text)).toEqual([
      '*Tool*\n`run_shell`',
      '*Permission*\nshell',
      '*Requested by*\n<@U123>',
      '*Expires*\n<!date^1714577400^{date_short_pretty} at {time}|2024-05-01T15:30:00Z>',
    ]);
    expect(argumentsText(card.blocks)).toBe('*Arguments*\n```\n{\n  "command": "df -h"\n}\n```');
    const context = blockOf<ContextBlock>(card.blocks, 'context');
    expect(context.elements).toEqual([
      {
        type: 'mrkdwn',
        text: 'Requested <!date^1714573800^{date_short_pretty} at {time}|2024-05-01T14:30:00Z>',
      },
      { type: 'mrkdwn', text: 'Approvers: <@U900> <!subteam^S100>' },
    ]);
  });

  it('has three buttons whose value is only the request id', () => {
    const actions = blockOf<ActionsBlock>(buildApprovalCard(view()).blocks, 'actions');
    expect(actions.block_id).toBe('holdfast.approval:apr_9f2c1e7b4d:0123456789abcdef0123456789abcdef');
    const buttons = actions.elements as Button[];
    expect(buttons.map((button) => [button.action_id, button.text.text, button.style, button.value])).toEqual(
      [
        ['holdfast.approval.allow', 'Allow', 'primary', 'apr_9f2c1e7b4d'],
        ['holdfast.approval.deny', 'Deny', 'danger', 'apr_9f2c1e7b4d'],
        ['holdfast.approval.always', 'Always allow…', undefined, 'apr_9f2c1e7b4d'],
      ],
    );
  });

  it('asks for confirmation on Allow, naming the tool', () => {
    const [allow] = blockOf<ActionsBlock>(buildApprovalCard(view()).blocks, 'actions').elements as Button[];
    expect(allow?.confirm?.title?.text).toBe('Allow run_shell?');
    expect(allow?.confirm?.text.text).toContain('`run_shell`');
    expect(allow?.confirm?.confirm?.text).toBe('Allow');
    expect(allow?.confirm?.deny?.text).toBe('Cancel');
  });

  it('writes fallback text as a phone notification that also mentions the approvers', () => {
    expect(buildApprovalCard(view()).text).toBe(
      'Approval needed: run_shell `df -h` requested by <@U123> (approvers: <@U900> <!subteam^S100>)',
    );
    expect(buildApprovalCard(view({ approverMentions: { users: [], groups: [] } })).text).toBe(
      'Approval needed: run_shell `df -h` requested by <@U123>',
    );
  });

  it('limits the argument in the fallback text to 150 characters', () => {
    const card = buildApprovalCard(
      view({ argumentsJson: JSON.stringify({ command: `echo ${'x'.repeat(500)}` }) }),
    );
    const preview = /`([^`]*)`/.exec(card.text)?.[1] ?? '';
    expect(preview.length).toBe(150);
    expect(preview.endsWith('…')).toBe(true);
  });

  it('escapes <script>, & and neutralises backticks in the arguments', () => {
    const args = JSON.stringify({ command: 'echo "<script>alert(1)</script>" && cat ```x```' }, null, 2);
    const text = argumentsText(buildApprovalCard(view({ argumentsJson: args })).blocks);
    expect(text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).toContain('&amp;&amp;');
    expect(text).not.toContain('<script>');
    // Only the opening and closing fences remain.
    expect(text.split('```')).toHaveLength(3);
  });

  it('escapes the summary and the reason', () => {
    const card = buildApprovalCard(view({ summary: 'drop <users> & co', reason: 'because <!channel>' }));
    expect((card.blocks[1] as SectionBlock).text?.text).toBe(
      'drop &lt;users&gt; &amp; co\n*Why:* because &lt;!channel&gt;',
    );
  });

  it('truncates 100 KB of arguments with a visible note and stays within limits', () => {
    const args = JSON.stringify({ sql: `INSERT INTO t VALUES ${"(1, '<a&b>'), ".repeat(7000)}` });
    const card = buildApprovalCard(view({ argumentsJson: args }));
    const text = argumentsText(card.blocks);
    expect(text.length).toBeLessThanOrEqual(3000);
    const note = /_\(truncated, (\d+) more characters: use \*View full arguments\* to see them all\)_$/.exec(
      text,
    );
    expect(note).not.toBeNull();
    const shownRaw = text
      .slice('*Arguments*\n```\n'.length, text.lastIndexOf('\n```'))
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    expect(shownRaw.length + Number(note?.[1])).toBe(args.length);
    expect(findBlockKitViolations(card)).toEqual([]);
  });

  it('offers View full arguments instead of Allow when the arguments are cut', () => {
    const args = JSON.stringify({ sql: `DELETE FROM t WHERE id IN (${'1, '.repeat(2000)}2)` });
    const actions = blockOf<ActionsBlock>(buildApprovalCard(view({ argumentsJson: args })).blocks, 'actions');
    expect((actions.elements as Button[]).map((button) => [button.action_id, button.text.text])).toEqual([
      ['holdfast.approval.view', 'View full arguments'],
      ['holdfast.approval.deny', 'Deny'],
    ]);
    expect(actions.block_id).toBe('holdfast.approval:apr_9f2c1e7b4d:0123456789abcdef0123456789abcdef');
  });

  it('redacts secrets in the arguments', () => {
    const token = ['xoxb', '2222222222', 'zyxwvutsrqponm'].join('-');
    const card = buildApprovalCard(view({ argumentsJson: JSON.stringify({ header: `token ${token}` }) }));
    expect(JSON.stringify(card)).not.toContain(token);
  });

  it('shows quorum progress', () => {
    const card = buildApprovalCard(view({ quorum: { required: 2, approvedBy: ['U7'] } }));
    expect((card.blocks[1] as SectionBlock).fields?.at(-1)?.text).toBe('*Approvals*\n1 of 2: <@U7>');
  });

  it('omits the reason line and the approvers when there are none', () => {
    const card = buildApprovalCard(view({ reason: undefined, approverMentions: { users: [], groups: [] } }));
    expect((card.blocks[1] as SectionBlock).text?.text).toBe('run `df -h`');
    expect(blockOf<ContextBlock>(card.blocks, 'context').elements).toHaveLength(1);
  });

  it('stays within limits for huge fields everywhere', () => {
    const huge = 'x<&>'.repeat(25_000);
    const card = buildApprovalCard(
      view({
        toolName: huge,
        permissionType: huge,
        summary: huge,
        reason: huge,
        argumentsJson: huge,
        approverMentions: { users: Array.from({ length: 500 }, (_, i) => `U${i}`), groups: [] },
        quorum: { required: 50, approvedBy: Array.from({ length: 40 }, (_, i) => `U${i}`) },
      }),
    );
    expect(findBlockKitViolations(card)).toEqual([]);
  });

  it('uses the time zone for date fallbacks', () => {
    const card = buildApprovalCard(view(), { timeZone: 'America/New_York' });
    expect((card.blocks[1] as SectionBlock).fields?.[3]?.text).toBe(
      '*Expires*\n<!date^1714577400^{date_short_pretty} at {time}|2024-05-01 11:30 America/New_York>',
    );
  });
});

describe('buildDecidedCard', () => {
  const at = Date.UTC(2024, 4, 1, 14, 35);
  const atToken = '<!date^1714574100^{date_short_pretty} at {time}|2024-05-01T14:35:00Z>';

  it.each([
    [
      { type: 'allowed', by: 'U2', at, always: false } as const,
      'Allowed',
      `✅ Allowed by <@U2> at ${atToken}`,
      'Allowed by <@U2>',
    ],
    [
      { type: 'allowed', by: 'U2', at, always: true } as const,
      'Allowed, with a grant',
      `✅ Allowed by <@U2> at ${atToken}, with a grant for later calls (\`/approvals grants\`)`,
      'Allowed by <@U2>, with a grant for later calls',
    ],
    [
      { type: 'denied', by: 'U3', at } as const,
      'Denied',
      `⛔ Denied by <@U3> at ${atToken}`,
      'Denied by <@U3>',
    ],
    [
      { type: 'expired', at } as const,
      'Expired',
      `⌛ Expired at ${atToken}, nobody decided`,
      'Expired, nobody decided',
    ],
  ])('shows %j with no buttons', (outcome, title, line, fallback) => {
    const card = buildDecidedCard(view(), outcome);
    expect(card.blocks.some((block) => block.type === 'actions')).toBe(false);
    expect(blockOf<HeaderBlock>(card.blocks, 'header').text.text).toBe(title);
    expect((card.blocks.at(-1) as SectionBlock).text?.text).toBe(line);
    expect(card.text).toBe(`${fallback}: run_shell \`df -h\``);
    expect(findBlockKitViolations(card)).toEqual([]);
  });

  it('keeps the request details and drops the expiry and the approver mentions', () => {
    const card = buildDecidedCard(view(), { type: 'denied', by: 'U3', at });
    const summary = card.blocks[1] as SectionBlock;
    expect(summary.fields?.map((field) => field.text.split('\n')[0])).toEqual([
      '*Tool*',
      '*Permission*',
      '*Requested by*',
    ]);
    expect(argumentsText(card.blocks)).toBe('*Arguments*\n```\n{\n  "command": "df -h"\n}\n```');
    expect(JSON.stringify(card.blocks)).not.toContain('<@U900>');
  });
});
