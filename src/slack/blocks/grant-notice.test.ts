import { describe, expect, it } from 'vitest';
import { buildGrantNotice, type GrantUsedNotice } from './grant-notice.js';

function notice(overrides: Partial<GrantUsedNotice> = {}): GrantUsedNotice {
  return {
    type: 'grant-used',
    tool: 'run_shell',
    call: 'kubectl get pods',
    grantedBy: 'U0BOB',
    scope: 'conversation',
    covers: { type: 'pattern', patterns: { command: 'kubectl get *' } },
    expiresAt: null,
    usesLeft: null,
    ...overrides,
  };
}

describe('buildGrantNotice', () => {
  it('states the grant’s scope in words: which calls, where, until when', () => {
    expect(buildGrantNotice(notice()).text).toBe(
      "🔓 `run_shell` `kubectl get pods` ran without asking, under <@U0BOB>'s grant for `run_shell` calls " +
        'whose command matches `kubectl get *` in this thread, until revoked. Revoke it with `/approvals grants`.',
    );
  });

  it('names a channel-wide grant of the whole tool, and the uses left', () => {
    const text = buildGrantNotice(notice({ scope: 'channel', covers: { type: 'tool' }, usesLeft: 1 })).text;
    expect(text).toContain(
      'grant for every `run_shell` call anywhere in this channel, until revoked · 1 use left.',
    );
  });

  it('names a grant of one exact call', () => {
    expect(buildGrantNotice(notice({ covers: { type: 'exact' } })).text).toContain(
      'grant for this exact `run_shell` call in this thread',
    );
  });
});
