import { describe, expect, it } from 'vitest';
import { finalAnswerOf, transcriptOf } from '../../../test/support/store-reads.js';
import type { ChatMessage } from '../transcript-records.js';
import { startTurn } from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

const call = { id: 'call_1', name: 'shell', arguments: '{"command":"df -h"}' };

export function describeTranscriptContract(open: StoreContractFactory): void {
  async function setup() {
    const database = await open();
    const started = await startTurn(database.store, { text: 'check disk' });
    const id = started.conversationId;
    const ref = (toolCallId: string, transcriptId = id) => ({
      conversationId: id,
      transcriptId,
      turnId: 'turn-1',
      toolCallId,
    });
    return { ...database, ...started, id, ref };
  }

  describe('transcript messages', () => {
    it('keeps messages in order in chat-completions shape, tool calls included', async () => {
      const { store, fence, id, ref, inspect } = await setup();
      const stored = await store.transcript.append(fence, id, {
        role: 'assistant',
        content: null,
        toolCalls: [call],
      });
      expect(stored).toMatchObject({
        transcriptId: id,
        turnId: 'turn-1',
        message: { role: 'assistant', content: null, toolCalls: [call] },
      });
      await store.transcript.recordToolResult(fence, ref('call_1'), '/dev/sda1 42%');
      const messages = (await inspect.messages()).filter((m) => m.transcriptId === id);
      expect(messages.map((m) => m.message)).toEqual([
        { role: 'user', content: 'check disk' },
        { role: 'assistant', content: null, toolCalls: [call] },
        { role: 'tool', toolCallId: 'call_1', content: '/dev/sda1 42%' },
      ]);
      expect(await transcriptOf(store, id)).toEqual(messages.map((m) => m.message));
      const seqs = messages.map((m) => m.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(new Set(seqs).size).toBe(3);
      expect(messages[1]?.seq).toBe(stored.seq);
    });

    it('keeps a nested transcript apart from its conversation', async () => {
      const { store, fence, id, ref } = await setup();
      const nested = `${id}>call_1`;
      await store.transcript.append(fence, nested, { role: 'user', content: 'sub task' });
      await store.transcript.append(fence, nested, { role: 'assistant', content: null, toolCalls: [call] });
      // The same call id in both transcripts does not collide.
      expect(await store.transcript.recordToolResult(fence, ref('call_1', nested), 'nested result')).toBe(
        true,
      );
      expect(await store.transcript.recordToolResult(fence, ref('call_1'), 'outer result')).toBe(true);
      expect((await transcriptOf(store, nested)).map((m) => m.content)).toEqual([
        'sub task',
        null,
        'nested result',
      ]);
      expect((await transcriptOf(store, id)).map((m) => m.content)).toEqual(['check disk', 'outer result']);
    });

    it('returns the last top-level assistant message without calls as the answer', async () => {
      const { store, fence, id } = await setup();
      expect(await finalAnswerOf(store, 'turn-1')).toBeUndefined();
      await store.transcript.append(fence, id, { role: 'assistant', content: 'first' });
      await store.transcript.append(fence, `${id}>call_9`, { role: 'assistant', content: 'nested answer' });
      await store.transcript.append(fence, id, { role: 'assistant', content: null, toolCalls: [call] });
      expect(await finalAnswerOf(store, 'turn-1')).toBe('first');
      expect(await transcriptOf(store, 'T:C:none')).toEqual([]);
    });

    it('reads what a turn wrote to its conversation’s transcript, in order, and no other turn’s', async () => {
      const { store, fence, id, ref } = await setup();
      const second = { ...call, id: 'call_2' };
      await store.transcript.append(fence, id, {
        role: 'assistant',
        content: null,
        toolCalls: [call, second],
      });
      await store.transcript.recordToolResult(fence, ref('call_2'), 'second');
      await store.transcript.recordToolResult(fence, ref('call_1'), 'first');
      await store.transcript.recordToolResult(fence, ref('call_1', `${id}>call_9`), 'nested');
      expect(await store.transcript.turnMessages('turn-1')).toEqual([
        { role: 'user', content: 'check disk' },
        { role: 'assistant', content: null, toolCalls: [call, second] },
        { role: 'tool', toolCallId: 'call_2', content: 'second' },
        { role: 'tool', toolCallId: 'call_1', content: 'first' },
      ]);
      expect(await store.transcript.turnMessages('turn-2')).toEqual([]);
    });
  });

  describe('tool execution ledger', () => {
    it('starts a call once; a second start reports the first', async () => {
      const { store, fence, clock, ref } = await setup();
      const start = { ...ref('call_1'), toolName: 'shell', argsHash: 'h' };
      expect(await store.transcript.startTool(fence, start)).toEqual({ type: 'started' });
      const startedAt = clock.now();
      clock.advance(1_000);
      expect(await store.transcript.startTool(fence, start)).toEqual({
        type: 'previously-started',
        startedAt,
      });
    });

    it('says when a call was started without a result, and nothing for one never started or finished', async () => {
      const { store, fence, clock, ref } = await setup();
      const startedAt = clock.now();
      await store.transcript.startTool(fence, { ...ref('call_1'), toolName: 'shell', argsHash: 'h' });
      clock.advance(250);
      expect(await store.transcript.unfinishedStart(ref('call_1'))).toBe(startedAt);
      expect(await store.transcript.unfinishedStart(ref('call_2'))).toBeUndefined();
      await store.transcript.recordToolResult(fence, ref('call_1'), 'done');
      expect(await store.transcript.unfinishedStart(ref('call_1'))).toBeUndefined();
    });

    it('records the result and finishes the ledger entry together; a second result is ignored', async () => {
      const { store, fence, clock, id, ref, inspect } = await setup();
      const startedAt = clock.now();
      await store.transcript.startTool(fence, { ...ref('call_1'), toolName: 'shell', argsHash: 'h' });
      clock.advance(250);
      expect(await store.transcript.recordToolResult(fence, ref('call_1'), 'first')).toBe(true);
      expect(await store.transcript.recordToolResult(fence, ref('call_1'), 'second')).toBe(false);
      const tools = (await transcriptOf(store, id)).filter((m) => m.role === 'tool');
      expect(tools.map((m) => m.content)).toEqual(['first']);
      expect(await inspect.toolExecutions()).toEqual([
        {
          transcriptId: id,
          toolCallId: 'call_1',
          status: 'finished',
          startedAt,
          finishedAt: clock.now(),
        },
      ]);
    });

    it('records a result for a call that never ran (a refusal) without a ledger entry', async () => {
      const { store, fence, id, ref, inspect } = await setup();
      expect(await store.transcript.recordToolResult(fence, ref('call_1'), 'denied by policy')).toBe(true);
      expect((await transcriptOf(store, id)).at(-1)).toEqual({
        role: 'tool',
        toolCallId: 'call_1',
        content: 'denied by policy',
      });
      expect(await inspect.toolExecutions()).toEqual([]);
    });

    it('keeps how a call ended with its result, read back by every reader and never as a call', async () => {
      const { store, fence, id, ref } = await setup();
      const turnId = 'turn-1';
      await store.transcript.append(fence, id, {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'call_1', name: 'shell', arguments: '{}' },
          { id: 'call_2', name: 'shell', arguments: '{}' },
        ],
      });
      await store.transcript.startTool(fence, { ...ref('call_1'), toolName: 'shell', argsHash: 'h' });
      const failed = { type: 'failed', exitCode: 2 } as const;
      await store.transcript.recordToolResult(fence, ref('call_1'), 'no\n[exit code 2]', failed);
      const denied = { type: 'denied', by: 'U0BOB' } as const;
      await store.transcript.recordToolResult(fence, ref('call_2'), 'Not run: denied by bob.', denied);

      const expected = [
        { role: 'tool', toolCallId: 'call_1', content: 'no\n[exit code 2]', outcome: failed },
        { role: 'tool', toolCallId: 'call_2', content: 'Not run: denied by bob.', outcome: denied },
      ];
      const isTool = (message: ChatMessage) => message.role === 'tool';
      expect((await transcriptOf(store, id)).filter(isTool)).toEqual(expected);
      expect((await store.transcript.turnMessages(turnId)).filter(isTool)).toEqual(expected);
      expect((await store.transcript.recent(id, { maxChars: 10_000 })).filter(isTool)).toEqual(expected);
      // The assistant message's calls are still the only calls: the outcome column is read on results only.
      expect(await store.transcript.turnUsage(turnId)).toEqual({ modelCalls: 1, toolCalls: 2 });
    });

    it('keeps ledger entries of a nested transcript apart', async () => {
      const { store, fence, id, ref } = await setup();
      const nested = `${id}>call_1`;
      const start = (transcriptId: string) => ({
        ...ref('call_1', transcriptId),
        toolName: 'shell',
        argsHash: 'h',
      });
      expect(await store.transcript.startTool(fence, start(id))).toEqual({ type: 'started' });
      expect(await store.transcript.startTool(fence, start(nested))).toEqual({ type: 'started' });
    });
  });
}
