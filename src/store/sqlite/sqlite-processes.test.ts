import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RaceProcess, startRaceProcess } from '../../../test/support/store-race.js';
import { awaitingTurn, newTurn, noticeEntry, thread } from '../contract/contract-fixtures.js';
import { openDatabase } from '../open-database.js';
import { createSqliteStore } from '../sqlite/create-sqlite-store.js';
import type { Store } from '../store.js';

const rounds = 40;
/** Each race gets threads of its own, so the races share one file and one pair of processes. */
const threadsFor = (race: number) =>
  Array.from({ length: rounds }, (_, index) => `${race}${String(index).padStart(2, '0')}.1`);

/**
 * The concurrency contracts run two stores in one thread, where better-sqlite3 finishes each call before
 * the next starts. These run the same races between two operating-system processes on one file, many
 * times over, so the transactions really overlap (a rolling deploy, DESIGN §2).
 */
describe('two processes on one SQLite file', () => {
  let dir: string;
  let db: Database.Database;
  let store: Store;
  let a: RaceProcess;
  let b: RaceProcess;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'holdfast-race-'));
    const file = path.join(dir, 'holdfast.db');
    db = openDatabase(file, { synchronous: 'OFF' });
    store = createSqliteStore(db);
    [a, b] = await Promise.all([startRaceProcess(file, 'proc-a'), startRaceProcess(file, 'proc-b')]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** For each round, which of the two processes got `outcome`; fails unless exactly one did. */
  function winners(results: string[][], outcome: string): string[] {
    const [fromA, fromB] = results as [string[], string[]];
    return fromA.map((first, index) => {
      const got = [first === outcome, fromB[index] === outcome];
      expect(got.filter(Boolean), `round ${index}: ${first} / ${fromB[index]}`).toHaveLength(1);
      return got[0] ? 'proc-a' : 'proc-b';
    });
  }

  it('claim each queued turn once', async () => {
    const threads = threadsFor(1);
    for (const ts of threads) await store.turns.enqueue(newTurn(thread(ts), `turn-${ts}`));
    const ids = threads.map((ts) => `turn-${ts}`);
    const results = await Promise.all([
      a.run({ type: 'claim-turns', ids }),
      b.run({ type: 'claim-turns', ids }),
    ]);
    const owners = winners(results, 'claimed');
    for (const [index, id] of ids.entries()) {
      expect(await store.turns.get(id)).toMatchObject({
        leaseOwner: owners[index],
        leaseToken: 1,
        attempts: 1,
      });
    }
  });

  it('decide each request once when both click', async () => {
    const threads = threadsFor(2);
    const ids: string[] = [];
    for (const ts of threads) {
      const { approval } = await awaitingTurn(store, Date.now(), { key: thread(ts), turnId: `turn-${ts}` });
      ids.push(approval.requestId);
    }
    const results = await Promise.all([
      a.run({ type: 'decide', ids, decision: 'allowed' }),
      b.run({ type: 'decide', ids, decision: 'denied' }),
    ]);
    const deciders = winners(results, 'decided');
    expect(results.flat().filter((outcome) => outcome === 'already-decided')).toHaveLength(rounds);
    for (const [index, id] of ids.entries()) {
      expect(await store.approvals.get(id)).toMatchObject({
        decidedBy: deciders[index],
        decision: deciders[index] === 'proc-a' ? 'allowed' : 'denied',
      });
      const decisions = (await store.audit.list({ approvalId: id })).filter(
        (e) => e.kind !== 'approval.requested',
      );
      expect(decisions).toHaveLength(1);
    }
  });

  it('start one of two new turns in each idle thread and queue the other', async () => {
    const threads = threadsFor(3);
    const results = await Promise.all([
      a.run({ type: 'enqueue', ids: threads }),
      b.run({ type: 'enqueue', ids: threads }),
    ]);
    winners(results, 'started');
    expect(results.flat().filter((outcome) => outcome === 'enqueued')).toHaveLength(rounds);
    const inRace = (turn: { conversationId: string }) =>
      threads.some((ts) => turn.conversationId.endsWith(ts));
    const { running, queued } = await store.turns.recoverable();
    expect(running.filter(inRace)).toHaveLength(rounds);
    expect(new Set(running.filter(inRace).map((turn) => turn.conversationId)).size).toBe(rounds);
    expect(queued.filter(inRace)).toEqual([]);
  });

  it('claim each outbox row once', async () => {
    const threads = threadsFor(4);
    const rows = await store.outbox.enqueue(threads.map((ts) => noticeEntry(ts, `T0HOLDFAST:C0OPS:${ts}`)));
    const ids = rows.map((row) => String(row.id));
    const results = await Promise.all([
      a.run({ type: 'claim-outbox', ids }),
      b.run({ type: 'claim-outbox', ids }),
    ]);
    const owners = winners(results, 'claimed');
    for (const [index, row] of rows.entries()) {
      const claim = db.prepare('SELECT claim_owner AS owner, claim_token AS token FROM outbox WHERE id = ?');
      expect(claim.get(row.id)).toEqual({ owner: owners[index], token: 1 });
    }
  });
});
