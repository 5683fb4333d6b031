import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../test/support/open-test-store.js';
import { transcriptOf } from '../../test/support/store-reads.js';
import { newTurn, thread } from '../../test/support/store-rows.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { createTestLogger } from '../../test/support/test-logger.js';
import { conversationId } from '../store/conversation-id.js';
import { recordTurnFailure } from './record-turn-failure.js';

describe('a failed turn closes the calls it left open', () => {
  it('as interrupted, outcome unknown, when the tool started; as not run when it never did', async () => {
    const { store } = openTestStore(tempDir().file('holdfast.db'));
    const key = thread('1700.1');
    const id = conversationId(key);
    await store.turns.enqueue(newTurn(key, 'turn-1'));
    const claim = await store.turns.claim('turn-1', { owner: 'proc-a', durationMs: 60_000 });
    if (claim?.type !== 'claimed') throw new Error('the turn was not claimed');
    const calls = [
      { id: 'call_deploy', name: 'deploy', arguments: '{"service":"web"}' },
      { id: 'call_notify', name: 'notify', arguments: '{}' },
    ];
    await store.transcript.append(claim.fence, id, { role: 'assistant', content: null, toolCalls: calls });
    // The deploy ran, and its result was never saved (the store refused it until the turn gave up).
    await store.transcript.startTool(claim.fence, {
      conversationId: id,
      transcriptId: id,
      turnId: 'turn-1',
      toolCallId: 'call_deploy',
      toolName: 'deploy',
      argsHash: 'h',
    });

    const outcome = await recordTurnFailure(
      {
        store,
        claim,
        log: createTestLogger().logger,
        reload: async () => (await store.turns.get('turn-1')) ?? claim.turn,
      },
      new Error('the disk is full'),
    );

    expect(outcome.type).toBe('failed');
    const results = (await transcriptOf(store, id)).flatMap((message) =>
      message.role === 'tool' ? [[message.toolCallId, message.content, message.outcome]] : [],
    );
    expect(results).toEqual([
      [
        'call_deploy',
        'interrupted: outcome unknown. The request failed while this was running, before its result was ' +
          'saved, so it may or may not have done its work. It was not run again, since running it twice ' +
          'might not be safe.\n[for the assistant only] The turn failed with internal_error. Tell the user, ' +
          'and ask them to check the outcome before retrying.',
        { type: 'interrupted' },
      ],
      [
        'call_notify',
        'Not run: the turn failed before this call ran (internal_error).',
        { type: 'refused', by: 'holdfast' },
      ],
    ]);
    const audit = await store.audit.list({ conversationId: id });
    expect(audit.filter((event) => event.kind === 'tool.interrupted').map((event) => event.data)).toEqual([
      expect.objectContaining({ tool: 'deploy', toolCallId: 'call_deploy' }),
    ]);
    expect(await store.transcript.unfinishedStart({ transcriptId: id, toolCallId: 'call_deploy' })).toBe(
      undefined,
    );
  });
});
