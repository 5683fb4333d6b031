import { describe, expect, it } from 'vitest';
import { conversationId, threadOf } from './conversation-id.js';

describe('threadOf', () => {
  it('reads back the thread an id was made from', () => {
    const thread = { teamId: 'T024BE7LD', channelId: 'C0CHANNEL', threadTs: '1700000000.000100' };
    expect(threadOf(conversationId(thread))).toEqual(thread);
  });

  it('names no thread for a string conversationId did not make', () => {
    for (const id of ['', 'T1:C1', 'T1:C1:1700.1:extra', ':C1:1700.1', 'T1::1700.1', 'T1:C1:']) {
      expect(threadOf(id)).toBeUndefined();
    }
  });
});
