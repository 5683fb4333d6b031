import { describe, expect, it } from 'vitest';
import { findBlockKitViolations } from './block-kit-limits.js';
import { buildDirectNotice, explainUndeliverable } from './delivery-notice.js';

describe('buildDirectNotice', () => {
  it('tells the requester where an undeliverable approval can still be decided', () => {
    const message = buildDirectNotice({
      type: 'undeliverable',
      what: 'approval-card',
      channelId: 'C0OPS',
      reason: 'not_in_channel',
      requestId: 'apr_1',
    });
    expect(message.text).toBe(
      '⚠️ holdfast could not post an approval request for your message in <#C0OPS>: holdfast is not a member ' +
        'of that channel. Invite it with `/invite @holdfast` and ask again.\n' +
        'The request is still waiting: approvers can decide it with `/approvals all` or in holdfast’s Home tab.',
    );
    expect(findBlockKitViolations(message)).toEqual([]);
  });

  it('says which answer could not be posted, and why, in words', () => {
    const message = buildDirectNotice({
      type: 'undeliverable',
      what: 'answer',
      channelId: 'C0OLD',
      reason: 'is_archived',
    });
    expect(message.text).toBe(
      '⚠️ holdfast could not post the answer to your request in <#C0OLD>: the channel is archived.',
    );
  });
});

describe('explainUndeliverable', () => {
  it('escapes a reason it does not know', () => {
    expect(explainUndeliverable('<weird>')).toBe('Slack refused the message (&lt;weird&gt;).');
  });
});
