import { describe, expect, it } from 'vitest';
import { findBlockKitViolations } from './block-kit-limits.js';
import { buildThreadNotice } from './thread-notice.js';

describe('buildThreadNotice', () => {
  it.each([
    [
      { type: 'failed', detail: 'the model timed out' } as const,
      '⚠️ Something went wrong: the model timed out',
    ],
    [
      { type: 'interrupted', detail: 'run_shell `df -h` may have run.' } as const,
      '⚠️ Interrupted: outcome unknown. run_shell `df -h` may have run.',
    ],
    [
      { type: 'expired', detail: 'nobody decided run_shell in time' } as const,
      '⌛ Approval expired: nobody decided run_shell in time',
    ],
    [
      { type: 'refused', detail: 'You cannot approve your own request.' } as const,
      '🚫 You cannot approve your own request.',
    ],
  ])('words %j', (notice, text) => {
    expect(buildThreadNotice(notice)).toEqual({
      text,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
    });
  });

  it('escapes and redacts the detail', () => {
    const token = ['xoxp', '3333333333', 'qwertyuiopasdf'].join('-');
    const notice = buildThreadNotice({ type: 'failed', detail: `<b>boom</b> & ${token}` });
    expect(notice.text).toBe('⚠️ Something went wrong: &lt;b&gt;boom&lt;/b&gt; &amp; [redacted slack token]');
  });

  it('truncates a huge detail to fit', () => {
    const notice = buildThreadNotice({ type: 'failed', detail: 'stack '.repeat(10_000) });
    expect(findBlockKitViolations(notice)).toEqual([]);
    expect(notice.text.endsWith('…')).toBe(true);
  });
});
