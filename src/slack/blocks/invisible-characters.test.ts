import { describe, expect, it } from 'vitest';
import { buildAppHome } from './app-home.js';
import { buildApprovalCard, buildDecidedCard } from './approval-card.js';
import { buildApprovalInbox } from './approval-inbox.js';
import type { ApprovalView } from './approval-view.js';

// "rm -rf /srv/app" that reads as "rm -rf /srv/ppa" with the override, a zero-width space in the flag,
// an isolate, a C1 control, a carriage return and a Unicode tag character.
const tricky = 'rm -r\u200Bf /srv/\u202Eapp\u202C && echo \u2066ok\u2069\u0085\r \u{E0041}';
// How the override reads once escaped, inside JSON.stringify's rendering of the blocks.
const escapedOverride = '/srv/\\\\u202Eapp\\\\u202C';
const invisible = /[\u200B\u202A-\u202E\u2066-\u2069\u0085\r]|\u{E0041}/u;

function view(overrides: Partial<ApprovalView> = {}): ApprovalView {
  return {
    requestId: 'apr_1',
    argsFingerprint: 'f'.repeat(32),
    toolName: 'run_shell',
    permissionType: 'shell',
    summary: `run \`${tricky}\``,
    argumentsJson: JSON.stringify({ command: tricky }, null, 2),
    requestedBy: 'U123',
    reason: `because\u202E of reasons`,
    createdAt: Date.UTC(2024, 4, 1, 14, 0),
    expiresAt: Date.UTC(2024, 4, 1, 15, 0),
    approverMentions: { users: ['U900'], groups: [] },
    channelId: 'C1',
    ...overrides,
  };
}

/** Every string inside a payload, so nothing hides in a field the assertion did not think of. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

describe('invisible and bidirectional characters in arguments', () => {
  it('are shown escaped on the card, in its fallback text and on the decided card', () => {
    const card = buildApprovalCard(view());
    expect(strings(card).filter((text) => invisible.test(text))).toEqual([]);
    expect(JSON.stringify(card.blocks)).toContain(escapedOverride);
    expect(JSON.stringify(card.blocks)).toContain('r\\\\u200Bf');
    expect(JSON.stringify(card.blocks)).toContain('\\\\u{E0041}');
    expect(card.text).toContain('\\u202E');
    const decided = buildDecidedCard(view(), { type: 'denied', by: 'U2', at: Date.UTC(2024, 4, 1, 14, 5) });
    expect(strings(decided).filter((text) => invisible.test(text))).toEqual([]);
  });

  it('are shown escaped in the /approvals inbox', () => {
    const inbox = buildApprovalInbox([view()], { scope: 'channel', viewer: 'U1' });
    expect(strings(inbox).filter((text) => invisible.test(text))).toEqual([]);
    expect(JSON.stringify(inbox.blocks)).toContain(escapedOverride);
  });

  it('are shown escaped on the App Home, pending and decided', () => {
    const home = buildAppHome({
      pending: [view()],
      recent: [
        { view: view({ requestId: 'apr_2' }), outcome: { type: 'expired', at: Date.UTC(2024, 4, 1) } },
      ],
      viewer: 'U1',
    });
    expect(strings(home).filter((text) => invisible.test(text))).toEqual([]);
    expect(JSON.stringify(home.blocks)).toContain(escapedOverride);
  });
});
