import { describe, expect, it } from 'vitest';
import { transcriptOf } from '../../../test/support/store-reads.js';
import { conversationId } from '../conversation-id.js';
import { emptyKvSnapshot } from '../kv-snapshot.js';
import { outboxKeys } from '../outbox-message.js';
import { claimed, leaseA, leaseB, newApproval, newTurn, startTurn, thread } from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

const calls = [
  { id: 'call_web', name: 'restart_service', arguments: '{"service":"web"}' },
  { id: 'call_db', name: 'restart_service', arguments: '{"service":"db"}' },
];

export function describeBatchesContract(open: StoreContractFactory): void {
  describe('a turn suspending with a batch of requests', () => {
    it('writes the assistant message, every pending row, the kv, the status and the cards in one commit', async () => {
      const { store, clock, inspect } = await open();
      const started = await startTurn(store);
      const kv = { values: { step: 2 }, children: {} };
      const rows = calls.map((call) =>
        newApproval(started.turn, call.id, { createdAt: clock.now(), arguments: JSON.parse(call.arguments) }),
      );

      const stored = await store.turns.suspend(
        started.fence,
        kv,
        {},
        {
          transcriptId: started.conversationId,
          message: { role: 'assistant', content: null, toolCalls: calls },
          approvals: rows,
          outboxFor: (approvals) =>
            approvals.map((approval) => ({
              key: outboxKeys.card(approval.requestId),
              conversationId: started.conversationId,
              turnId: 'turn-1',
              requestId: approval.requestId,
              message: { type: 'approval-card', requestId: approval.requestId },
            })),
        },
      );

      expect(stored.map((approval) => approval.toolCallId)).toEqual(['call_web', 'call_db']);
      expect(await store.turns.get('turn-1')).toMatchObject({
        status: 'awaiting_approval',
        leaseOwner: null,
      });
      expect(await transcriptOf(store, started.conversationId)).toEqual([
        { role: 'user', content: 'restart the web tier' },
        { role: 'assistant', content: null, toolCalls: calls },
      ]);
      expect((await store.approvals.pending()).map((approval) => approval.toolCallId)).toEqual([
        'call_web',
        'call_db',
      ]);
      expect(await store.turns.resumeKv('turn-1')).toEqual(kv);
      expect((await inspect.outbox()).map((row) => [row.key, row.claim])).toEqual([
        [outboxKeys.card(rows[0]?.requestId ?? ''), null],
        [outboxKeys.card(rows[1]?.requestId ?? ''), null],
      ]);
    });

    it('forgets the start of a call that stopped to ask its requester, in the same commit', async () => {
      const { store, clock } = await open();
      const started = await startTurn(store);
      const id = started.conversationId;
      await store.transcript.append(started.fence, id, {
        role: 'assistant',
        content: null,
        toolCalls: [calls[0]!],
      });
      const call = { conversationId: id, transcriptId: id, turnId: 'turn-1', toolCallId: 'call_web' };
      expect(
        await store.transcript.startTool(started.fence, {
          ...call,
          toolName: 'restart_service',
          argsHash: 'h1',
        }),
      ).toEqual({ type: 'started' });
      const question = newApproval(started.turn, 'question-0', { createdAt: clock.now() });

      await store.turns.suspend(
        started.fence,
        emptyKvSnapshot,
        {},
        {
          transcriptId: `${id}>call_web?`,
          approvals: [{ ...question, transcriptId: `${id}>call_web?` }],
          restartCall: call,
        },
      );

      // Once answered and resumed, the call starts afresh: it is not a call a dead process left running.
      await store.approvals.resolve({
        requestId: question.requestId,
        decision: 'allowed',
        decidedBy: 'UREQUESTER',
      });
      const resumed = claimed(await store.turns.claim('turn-1', leaseB));
      expect(
        await store.transcript.startTool(resumed.fence, {
          ...call,
          toolName: 'restart_service',
          argsHash: 'h1',
        }),
      ).toEqual({ type: 'started' });
    });

    it('writes nothing of the batch when the fence is stale', async () => {
      const { store, clock, inspect } = await open();
      const started = await startTurn(store);
      clock.advance(leaseA.durationMs + 1);
      claimed(await store.turns.claim('turn-1', leaseB));

      await expect(
        store.turns.suspend(
          started.fence,
          emptyKvSnapshot,
          {},
          {
            transcriptId: started.conversationId,
            message: { role: 'assistant', content: null, toolCalls: calls },
            approvals: [newApproval(started.turn, 'call_web', { createdAt: clock.now() })],
          },
        ),
      ).rejects.toMatchObject({ code: 'lease_lost' });
      expect(await store.approvals.pending()).toEqual([]);
      expect(await transcriptOf(store, started.conversationId)).toHaveLength(1);
      expect(await inspect.outbox()).toEqual([]);
    });
  });

  describe('transcript.recent', () => {
    it('reads the newest exchanges back to a user message, enough to cover the budget, in order', async () => {
      const { store } = await open();
      const started = await startTurn(store, { text: 'first question' });
      const id = started.conversationId;
      await store.transcript.append(started.fence, id, { role: 'assistant', content: 'a'.repeat(500) });
      await store.transcript.append(started.fence, id, { role: 'user', content: 'second question' });
      await store.transcript.append(started.fence, id, {
        role: 'assistant',
        content: null,
        toolCalls: [calls[0]!],
      });
      await store.transcript.recordToolResult(
        started.fence,
        { conversationId: id, transcriptId: id, turnId: 'turn-1', toolCallId: 'call_web' },
        'restarted',
      );

      expect(await store.transcript.recent(id, { maxChars: 10 })).toEqual([
        { role: 'user', content: 'second question' },
        { role: 'assistant', content: null, toolCalls: [calls[0]] },
        { role: 'tool', toolCallId: 'call_web', content: 'restarted' },
      ]);
      expect(await store.transcript.recent(id, { maxChars: 10_000 })).toHaveLength(5);
      expect(await store.transcript.recent('T:C:none', { maxChars: 10 })).toEqual([]);
    });
  });

  describe('transcript.turnUsage', () => {
    it('counts a turn’s model replies and tool results in every transcript it wrote to', async () => {
      const { store } = await open();
      const started = await startTurn(store);
      const id = started.conversationId;
      await store.transcript.append(started.fence, id, {
        role: 'assistant',
        content: null,
        toolCalls: [calls[0]!],
      });
      await store.transcript.recordToolResult(
        started.fence,
        { conversationId: id, transcriptId: id, turnId: 'turn-1', toolCallId: 'call_web' },
        'ok',
      );
      await store.transcript.append(started.fence, `${id}>call_web`, {
        role: 'assistant',
        content: 'nested',
      });
      expect(await store.transcript.turnUsage('turn-1')).toEqual({ modelCalls: 2, toolCalls: 1 });
    });
  });

  describe('turns.enqueue with admission limits', () => {
    it('refuses a thread or a person with too much unfinished work, writing nothing', async () => {
      const { store } = await open();
      const limits = { perThread: 2, perUser: 3 };
      const key = thread('1700.1');
      expect((await store.turns.enqueue(newTurn(key, 't1', { ts: '1700.1' }), undefined, limits)).type).toBe(
        'enqueued',
      );
      expect((await store.turns.enqueue(newTurn(key, 't2', { ts: '1700.2' }), undefined, limits)).type).toBe(
        'enqueued',
      );
      expect(await store.turns.enqueue(newTurn(key, 't3', { ts: '1700.3' }), undefined, limits)).toEqual({
        type: 'refused',
        reason: 'thread-busy',
        unfinished: 2,
      });
      expect(await store.turns.get('t3')).toBeUndefined();
      expect((await store.turns.enqueue(newTurn(thread('1800.1'), 't4'), undefined, limits)).type).toBe(
        'enqueued',
      );
      expect(await store.turns.enqueue(newTurn(thread('1900.1'), 't5'), undefined, limits)).toMatchObject({
        type: 'refused',
        reason: 'user-busy',
        unfinished: 3,
      });
      // A repeat of an admitted message is a duplicate, whatever the limits say now.
      expect(
        await store.turns.enqueue(newTurn(key, 'again', { ts: '1700.1' }), undefined, limits),
      ).toMatchObject({
        type: 'duplicate',
        turn: { id: 't1' },
      });
      expect(conversationId(key)).toBe('T0HOLDFAST:C0OPS:1700.1');
    });

    it('admits no more of one person’s turns than the limit when they arrive at once in many threads', async () => {
      const { store } = await open();
      const limits = { perThread: 10, perUser: 3 };
      // Each in its own thread, so no thread lock orders them: only the person's count can.
      const results = await Promise.all(
        Array.from({ length: 12 }, (_unused, n) =>
          store.turns.enqueue(newTurn(thread(`2000.${n + 1}`), `burst-${n}`), undefined, limits),
        ),
      );
      expect(results.filter((result) => result.type === 'enqueued')).toHaveLength(3);
      expect(results.filter((result) => result.type === 'refused')).toHaveLength(9);
    });
  });

  describe('outbox.claim during a backoff', () => {
    it('does not hand out a row before its next attempt is due', async () => {
      const { store, clock } = await open();
      const [row] = await store.outbox.enqueue([
        {
          key: 'notice:1',
          conversationId: 'T:C:1',
          message: { type: 'turn-notice', turnId: 't', notice: { type: 'failed', code: 'x', message: 'y' } },
        },
      ]);
      const held = await store.outbox.claim(row!.id, leaseA);
      await store.outbox.retryLater(
        row!.id,
        { owner: 'proc-a', token: held!.claim!.token },
        {
          nextAttemptAt: clock.now() + 5_000,
          error: 'http_503',
        },
      );
      expect(await store.outbox.claim(row!.id, leaseB)).toBeUndefined();
      clock.advance(5_000);
      expect(await store.outbox.claim(row!.id, leaseB)).toMatchObject({ claim: { owner: 'proc-b' } });
    });
  });
}
