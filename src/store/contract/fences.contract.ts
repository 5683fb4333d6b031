import { describe, expect, it } from 'vitest';
import { emptyKvSnapshot } from '../kv-snapshot.js';
import type { Fence, Store } from '../store.js';
import { LeaseLostError } from '../store-errors.js';
import {
  answerEntry,
  claimed,
  leaseA,
  leaseB,
  newApproval,
  observe,
  type StartedTurn,
  startTurn,
} from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

/** A write made for a turn, called with the fence of a process that no longer holds it. */
interface FencedWrite {
  readonly name: string;
  readonly write: (store: Store, fence: Fence, started: StartedTurn, now: number) => Promise<unknown>;
}

const call = { id: 'call_1', name: 'shell', arguments: '{}' };
const ref = (started: StartedTurn) => ({
  conversationId: started.conversationId,
  transcriptId: started.conversationId,
  turnId: started.turn.turnId,
  toolCallId: 'call_1',
});

const refusedWrites: readonly FencedWrite[] = [
  {
    name: 'transcript.append',
    write: (store, fence, started) =>
      store.transcript.append(fence, started.conversationId, {
        role: 'assistant',
        content: null,
        toolCalls: [call],
      }),
  },
  {
    name: 'transcript.append to a nested transcript',
    write: (store, fence, started) =>
      store.transcript.append(fence, `${started.conversationId}>call_1`, { role: 'user', content: 'sub' }),
  },
  {
    name: 'transcript.startTool',
    write: (store, fence, started) =>
      store.transcript.startTool(fence, { ...ref(started), toolName: 'shell', argsHash: 'h' }),
  },
  {
    name: 'transcript.recordToolResult',
    write: (store, fence, started) => store.transcript.recordToolResult(fence, ref(started), 'late result'),
  },
  {
    name: 'turns.suspend with a batch of requests',
    write: (store, fence, started, now) =>
      store.turns.suspend(
        fence,
        { values: { zombie: true }, children: {} },
        {},
        {
          transcriptId: started.conversationId,
          approvals: [newApproval(started.turn, 'call_1', { createdAt: now })],
        },
      ),
  },
  {
    name: 'turns.complete',
    write: (store, fence, started) =>
      store.turns.complete(
        fence,
        { answer: 'zombie answer', kv: { values: { zombie: true }, children: {} } },
        { outbox: [answerEntry(started.turn.turnId, started.conversationId)] },
      ),
  },
  {
    name: 'turns.suspend',
    write: (store, fence, started) =>
      store.turns.suspend(
        fence,
        { values: { zombie: true }, children: {} },
        {
          outbox: [answerEntry(started.turn.turnId, started.conversationId)],
        },
      ),
  },
  {
    name: 'turns.fail',
    write: (store, fence, started) =>
      store.turns.fail(
        fence,
        { code: 'model_error', message: 'zombie' },
        {
          outbox: [answerEntry(started.turn.turnId, started.conversationId)],
        },
      ),
  },
];

/**
 * The ways a process loses a turn it was running. Each returns the stale fence; afterwards the turn is
 * in whatever state the new holder (or the operator) left it.
 */
const losses: ReadonlyArray<{
  readonly name: string;
  readonly lose: (store: Store, started: StartedTurn, advance: (ms: number) => void) => Promise<void>;
}> = [
  {
    name: 'its lease lapsed and another process took the turn',
    lose: async (store, _started, advance) => {
      advance(leaseA.durationMs + 1);
      claimed(await store.turns.claim('turn-1', leaseB));
    },
  },
  {
    name: 'another process took it over as gone',
    lose: async (store) => {
      claimed(await store.turns.claim('turn-1', leaseB, { takeOverFrom: 'proc-a' }));
    },
  },
  {
    name: 'the same owner claimed it again after a restart (same name, newer token)',
    lose: async (store, _started, advance) => {
      advance(leaseA.durationMs + 1);
      claimed(await store.turns.claim('turn-1', leaseA));
    },
  },
  {
    name: 'it released the turn',
    lose: async (store, started) => store.turns.release(started.fence),
  },
  {
    name: 'an operator failed the turn',
    lose: async (store) =>
      store.turns.fail({ turnId: 'turn-1' }, { code: 'canceled', message: 'by operator' }),
  },
];

export function describeFencesContract(open: StoreContractFactory): void {
  describe('fenced writes', () => {
    describe.each(losses)('from a process that lost its turn because $name', ({ lose }) => {
      it.each(refusedWrites)('refuses $name with LeaseLostError and writes nothing', async ({ write }) => {
        const { store, clock, inspect } = await open();
        const started = await startTurn(store);
        await store.transcript.append(started.fence, started.conversationId, {
          role: 'assistant',
          content: null,
          toolCalls: [call],
        });
        await lose(store, started, clock.advance);
        const before = await observe(store, inspect, started);
        clock.advance(1);
        await expect(write(store, started.fence, started, clock.now())).rejects.toBeInstanceOf(
          LeaseLostError,
        );
        expect(await observe(store, inspect, started)).toEqual(before);
      });

      it('does not renew its lease, and writes nothing', async () => {
        const { store, clock, inspect } = await open();
        const started = await startTurn(store);
        await lose(store, started, clock.advance);
        const before = await observe(store, inspect, started);
        expect(await store.turns.renewLease(started.fence, 600_000)).toBe(false);
        expect(await observe(store, inspect, started)).toEqual(before);
      });

      it('releases nothing: the turn stays with whoever holds it now', async () => {
        const { store, clock, inspect } = await open();
        const started = await startTurn(store);
        await lose(store, started, clock.advance);
        const before = await observe(store, inspect, started);
        await store.turns.release(started.fence);
        expect(await observe(store, inspect, started)).toEqual(before);
      });
    });

    it('names the turn in LeaseLostError', async () => {
      const { store } = await open();
      const started = await startTurn(store);
      await store.turns.complete(started.fence, { answer: 'done', kv: emptyKvSnapshot });
      const refused = await store.transcript
        .append(started.fence, started.conversationId, { role: 'assistant', content: 'late' })
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(LeaseLostError);
      expect(refused).toMatchObject({ code: 'lease_lost', turnId: 'turn-1' });
    });

    it('refuses a fence for a turn that does not exist', async () => {
      const { store } = await open();
      const started = await startTurn(store);
      const ghost = { ...started.fence, turnId: 'turn-ghost' };
      await expect(store.turns.complete(ghost, { answer: 'x', kv: emptyKvSnapshot })).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      expect(await store.turns.renewLease(ghost, 1_000)).toBe(false);
    });
  });
}
