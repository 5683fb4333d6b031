import { describe, expect, it } from 'vitest';
import { finalAnswerOf, transcriptOf } from '../../../test/support/store-reads.js';
import { emptyKvSnapshot } from '../kv-snapshot.js';
import { LeaseLostError } from '../store-errors.js';
import {
  awaitingTurn,
  claimed,
  completeOne,
  day,
  leaseA,
  leaseB,
  newApproval,
  newTurn,
  noticeEntry,
  observe,
  outboxRow,
  startTurn,
  suspendWithRequests,
  thread,
} from './contract-fixtures.js';
import type { StoreContractFactory } from './store-contract.js';

/**
 * Two stores on one database, as two processes (an old and a new release during a deploy, or two
 * replicas) see it. Each race is started from both sides at once; whichever wins, exactly one does.
 */
export function describeConcurrencyContract(open: StoreContractFactory): void {
  async function twoProcesses() {
    const database = await open();
    return { ...database, a: database.store, b: await database.openAnother() };
  }

  describe('two processes on one database', () => {
    it('see each other’s writes', async () => {
      const { a, b } = await twoProcesses();
      const started = await startTurn(a);
      expect(await b.turns.get('turn-1')).toMatchObject({ status: 'running', leaseOwner: 'proc-a' });
      expect(await transcriptOf(b, started.conversationId)).toHaveLength(1);
    });

    it('claim one queued turn once', async () => {
      const { a, b } = await twoProcesses();
      await a.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
      const results = await Promise.all([a.turns.claim('turn-1', leaseA), b.turns.claim('turn-1', leaseB)]);
      const winners = results.filter((result) => result.type === 'claimed');
      expect(winners).toHaveLength(1);
      expect(results.filter((result) => result.type === 'not-claimable')).toHaveLength(1);
      const winner = claimed(winners[0]);
      expect(await a.turns.get('turn-1')).toMatchObject({ leaseOwner: winner.fence.owner, leaseToken: 1 });
      const messages = await transcriptOf(b, winner.turn.conversationId);
      expect(messages.filter((m) => m.role === 'user')).toHaveLength(1);
    });

    it('recover one lapsed turn once', async () => {
      const { a, b, clock } = await twoProcesses();
      await startTurn(a, { lease: { owner: 'proc-dead', durationMs: 1_000 } });
      clock.advance(1_001);
      const results = await Promise.all([a.turns.claim('turn-1', leaseA), b.turns.claim('turn-1', leaseB)]);
      expect(results.filter((result) => result.type === 'claimed')).toHaveLength(1);
      expect((await a.turns.get('turn-1'))?.leaseToken).toBe(2);
    });

    it('decide one request once when two people click at the same time', async () => {
      const { a, b, clock, inspect } = await twoProcesses();
      const { approval } = await awaitingTurn(a, clock.now());
      const results = await Promise.all([
        a.approvals.resolve(
          { requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' },
          { lease: leaseA },
        ),
        b.approvals.resolve(
          { requestId: approval.requestId, decision: 'denied', decidedBy: 'UB' },
          { lease: leaseB },
        ),
      ]);
      const decided = results.filter((result) => result.type === 'decided');
      expect(decided).toHaveLength(1);
      expect(results.filter((result) => result.type === 'already-decided')).toHaveLength(1);
      const winner = decided[0]!;
      if (winner.type !== 'decided') throw new Error('unreachable');
      const stored = await b.approvals.get(approval.requestId);
      expect(stored).toMatchObject({
        decision: winner.approval.decision,
        decidedBy: winner.approval.decidedBy,
      });
      const loser = results.find((result) => result.type === 'already-decided');
      expect(loser).toMatchObject({ approval: { decision: winner.approval.decision } });
      // One decision: one audit row, one card rewrite, one claim of the turn.
      const decisions = (await a.audit.list({ approvalId: approval.requestId })).filter(
        (e) => e.kind === 'approval.allowed' || e.kind === 'approval.denied',
      );
      expect(decisions).toHaveLength(1);
      expect(await inspect.outbox()).toHaveLength(1);
      expect(await a.turns.get('turn-1')).toMatchObject({
        status: 'running',
        leaseOwner: winner.claim?.fence.owner,
        leaseToken: 2,
      });
    });

    it('resume a turn once when its last two requests are decided at the same time', async () => {
      const { a, b, clock } = await twoProcesses();
      const started = await startTurn(a);
      const [first, second] = await suspendWithRequests(a, started, [
        { toolCallId: 'call_1', createdAt: clock.now() },
        { toolCallId: 'call_2', createdAt: clock.now() },
      ]);
      if (!first || !second) throw new Error('the suspension stored no requests');
      const results = await Promise.all([
        a.approvals.resolve(
          { requestId: first.requestId, decision: 'allowed', decidedBy: 'UA' },
          { lease: leaseA },
        ),
        b.approvals.resolve(
          { requestId: second.requestId, decision: 'allowed', decidedBy: 'UB' },
          { lease: leaseB },
        ),
      ]);
      expect(results.map((result) => result.type)).toEqual(['decided', 'decided']);
      // Whichever decided last saw none left and claimed the turn; neither may leave it waiting.
      const claims = results.filter((result) => result.type === 'decided' && result.claim);
      expect(claims).toHaveLength(1);
      expect(results.filter((result) => result.type === 'decided' && result.turnReady)).toHaveLength(1);
      expect(await b.turns.get('turn-1')).toMatchObject({ status: 'running', leaseToken: 2 });
    });

    it('settle a click racing the expiry sweep one way only', async () => {
      const { a, b, clock } = await twoProcesses();
      const { approval } = await awaitingTurn(a, clock.now());
      clock.advance(day);
      const [clicked, swept] = await Promise.all([
        a.approvals.resolve({ requestId: approval.requestId, decision: 'allowed', decidedBy: 'UA' }),
        b.approvals.expireOverdue(),
      ]);
      const expiredByClick = clicked.type === 'expired' ? 1 : 0;
      expect(expiredByClick + swept.length).toBe(1);
      expect(clicked.type === 'expired' || clicked.type === 'already-decided').toBe(true);
      const expiries = (await b.audit.list({ approvalId: approval.requestId })).filter(
        (e) => e.kind === 'approval.expired',
      );
      expect(expiries).toHaveLength(1);
    });

    it('start one of two new turns in one idle thread and queue the other', async () => {
      const { a, b } = await twoProcesses();
      const results = await Promise.all([
        a.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'), leaseA),
        b.turns.enqueue(newTurn(thread('1700.1'), 'turn-2', { ts: '1700.2' }), leaseB),
      ]);
      expect(results.map((result) => result.type)).toEqual(['enqueued', 'enqueued']);
      const started = results.filter((result) => result.type === 'enqueued' && result.claim);
      expect(started).toHaveLength(1);
      const statuses = await Promise.all(
        ['turn-1', 'turn-2'].map(async (id) => (await a.turns.get(id))?.status),
      );
      expect(statuses.sort()).toEqual(['queued', 'running']);
    });

    it('queue one turn for one Slack message delivered to both', async () => {
      const { a, b } = await twoProcesses();
      const results = await Promise.all([
        a.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'), leaseA),
        b.turns.enqueue(newTurn(thread('1700.1'), 'turn-1b'), leaseB),
      ]);
      expect(results.map((result) => result.type).sort()).toEqual(['duplicate', 'enqueued']);
      const kept = results.find((result) => result.type === 'enqueued')!.turn.id;
      expect(results.find((result) => result.type === 'duplicate')?.turn.id).toBe(kept);
    });

    it('refuse every write of a zombie after a takeover and keep the new holder’s work', async () => {
      const { a, b, clock, inspect } = await twoProcesses();
      const zombie = await startTurn(a);
      clock.advance(leaseA.durationMs + 1);
      const holder = claimed(await b.turns.claim('turn-1', leaseB));
      await b.transcript.append(holder.fence, zombie.conversationId, {
        role: 'assistant',
        content: 'working',
      });
      const before = await observe(b, inspect, zombie);

      const attempts = [
        () =>
          a.transcript.append(zombie.fence, zombie.conversationId, { role: 'assistant', content: 'zombie' }),
        () =>
          a.transcript.startTool(zombie.fence, {
            conversationId: zombie.conversationId,
            transcriptId: zombie.conversationId,
            turnId: 'turn-1',
            toolCallId: 'call_z',
            toolName: 'shell',
            argsHash: 'h',
          }),
        () =>
          a.turns.suspend(
            zombie.fence,
            emptyKvSnapshot,
            {},
            {
              transcriptId: zombie.conversationId,
              approvals: [newApproval(zombie.turn, 'call_z', { createdAt: clock.now() })],
            },
          ),
        () => a.turns.suspend(zombie.fence, emptyKvSnapshot),
        () => a.turns.complete(zombie.fence, { answer: 'zombie', kv: emptyKvSnapshot }),
        () => a.turns.fail(zombie.fence, { code: 'x', message: 'zombie' }),
      ];
      for (const attempt of attempts) await expect(attempt()).rejects.toBeInstanceOf(LeaseLostError);
      expect(await a.turns.renewLease(zombie.fence, 600_000)).toBe(false);
      await a.turns.release(zombie.fence);
      expect(await observe(b, inspect, zombie)).toEqual(before);

      await b.turns.complete(holder.fence, { answer: 'done by b', kv: emptyKvSnapshot });
      expect(await finalAnswerOf(a, 'turn-1')).toBe('done by b');
    });

    it('claim one outbox row once', async () => {
      const { a, b, inspect } = await twoProcesses();
      const [row] = await a.outbox.enqueue([noticeEntry('a', 'T0HOLDFAST:C0OPS:1700.1')]);
      const results = await Promise.all([a.outbox.claim(row!.id, leaseA), b.outbox.claim(row!.id, leaseB)]);
      const winners = results.filter((result) => result !== undefined);
      expect(winners).toHaveLength(1);
      expect(await outboxRow(inspect, row!.id)).toMatchObject({
        claim: { owner: winners[0]!.claim!.owner, token: 1 },
      });
      const loserOwner = winners[0]!.claim!.owner === 'proc-a' ? 'proc-b' : 'proc-a';
      expect(await completeOne(a, row!.id, { owner: loserOwner, token: 1 }, { sent: [] })).toBe(false);
    });
  });
}
