import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/support/open-test-store.js';
import { newTurn, thread } from '../../../test/support/store-rows.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { conversationId } from '../conversation-id.js';
import { StoredRowInvalidError } from '../store-errors.js';
import { rootConversationOf } from './sqlite-transcript.js';

async function setup() {
  const clock = createTestClock();
  const { store, db } = openTestStore(tempDir().file('holdfast.db'), { now: clock.now });
  const turn = newTurn(thread('1700.1'), 'turn-1', { text: 'check disk' });
  await store.turns.enqueue(turn);
  await store.turns.claim(turn.turnId, { owner: 'proc-a', durationMs: 60_000 });
  const id = conversationId(turn);
  const ref = (toolCallId: string, transcriptId = id) => ({
    conversationId: id,
    transcriptId,
    turnId: 'turn-1',
    toolCallId,
  });
  return { store, db, clock, id, ref };
}

const call = { id: 'call_1', name: 'shell', arguments: '{"command":"df -h"}' };

describe('transcript messages', () => {
  it('keeps messages in order in chat-completions shape, tool calls included', async () => {
    const { store, id, ref } = await setup();
    const stored = await store.transcript.append(id, 'turn-1', {
      role: 'assistant',
      content: null,
      toolCalls: [call],
    });
    expect(stored).toMatchObject({ transcriptId: id, turnId: 'turn-1' });
    await store.transcript.recordToolResult(ref('call_1'), '/dev/sda1 42%');
    expect((await store.transcript.messages(id)).map((m) => m.message)).toEqual([
      { role: 'user', content: 'check disk' },
      { role: 'assistant', content: null, toolCalls: [call] },
      { role: 'tool', toolCallId: 'call_1', content: '/dev/sda1 42%' },
    ]);
  });

  it('keeps a nested transcript apart from its conversation', async () => {
    const { store, id, ref } = await setup();
    const nested = `${id}>call_1`;
    expect(rootConversationOf(nested)).toBe(id);
    expect(rootConversationOf(id)).toBe(id);
    await store.transcript.append(nested, 'turn-1', { role: 'user', content: 'sub task' });
    await store.transcript.append(nested, 'turn-1', { role: 'assistant', content: null, toolCalls: [call] });
    // The same call id in both transcripts does not collide.
    expect(await store.transcript.recordToolResult(ref('call_1', nested), 'nested result')).toBe(true);
    expect(await store.transcript.recordToolResult(ref('call_1'), 'outer result')).toBe(true);
    expect((await store.transcript.messages(nested)).map((m) => m.message.content)).toEqual([
      'sub task',
      null,
      'nested result',
    ]);
    expect((await store.transcript.messages(id)).map((m) => m.message.content)).toEqual([
      'check disk',
      'outer result',
    ]);
  });

  it('returns the last top-level assistant message without calls as the answer', async () => {
    const { store, id } = await setup();
    expect(await store.transcript.finalAnswer('turn-1')).toBeUndefined();
    await store.transcript.append(id, 'turn-1', { role: 'assistant', content: 'first' });
    await store.transcript.append(`${id}>call_9`, 'turn-1', { role: 'assistant', content: 'nested answer' });
    await store.transcript.append(id, 'turn-1', { role: 'assistant', content: null, toolCalls: [call] });
    expect(await store.transcript.finalAnswer('turn-1')).toBe('first');
  });

  it('names the row when stored tool calls do not parse', async () => {
    const { store, db, id } = await setup();
    const stored = await store.transcript.append(id, 'turn-1', {
      role: 'assistant',
      content: null,
      toolCalls: [call],
    });
    db.prepare('UPDATE messages SET tool_calls_json = ? WHERE seq = ?').run('[{"id":1}]', stored.seq);
    await expect(store.transcript.messages(id)).rejects.toBeInstanceOf(StoredRowInvalidError);
  });
});

describe('tool execution ledger', () => {
  it('starts a call once; a second start reports the first', async () => {
    const { store, clock, ref } = await setup();
    const start = { ...ref('call_1'), toolName: 'shell', argsHash: 'h' };
    expect(await store.transcript.startTool(start)).toEqual({ type: 'started' });
    const startedAt = clock.now();
    clock.advance(1_000);
    expect(await store.transcript.startTool(start)).toEqual({ type: 'previously-started', startedAt });
  });

  it('records the result and finishes the ledger row in one go; a second result is ignored', async () => {
    const { store, db, clock, id, ref } = await setup();
    await store.transcript.startTool({ ...ref('call_1'), toolName: 'shell', argsHash: 'h' });
    clock.advance(250);
    expect(await store.transcript.recordToolResult(ref('call_1'), 'first')).toBe(true);
    expect(await store.transcript.recordToolResult(ref('call_1'), 'second')).toBe(false);
    const tools = (await store.transcript.messages(id)).filter((m) => m.message.role === 'tool');
    expect(tools.map((m) => m.message.content)).toEqual(['first']);
    expect(db.prepare('SELECT status, finished_at FROM tool_executions').all()).toEqual([
      { status: 'finished', finished_at: clock.now() },
    ]);
  });
});
