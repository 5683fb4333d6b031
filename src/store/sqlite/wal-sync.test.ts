import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { holdWalSyncs } from '../../../test/support/hold-wal-syncs.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { awaitingTurn, leaseA, newTurn, startTurn, thread } from '../contract/contract-fixtures.js';
import { openDatabase } from '../open-database.js';
import type { ClaimedTurn, Store } from '../store.js';
import { StoreUnavailableError } from '../store-errors.js';
import { createSqliteStore } from './create-sqlite-store.js';
import { queueWrite } from './sqlite-context.js';

function settled(promise: Promise<unknown>): () => boolean {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  return () => done;
}

describe('synchronous=FULL with the WAL synced off the event loop', () => {
  let store: Store | undefined;
  afterEach(() => {
    vi.restoreAllMocks();
    store?.close();
    store = undefined;
  });

  function open(): { store: Store; file: string; db: Database.Database } {
    const file = tempDir('holdfast-walsync-').file('holdfast.db');
    const db = openDatabase(file, { synchronous: 'FULL' });
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL: COMMIT itself does not fsync
    store = createSqliteStore(db);
    return { store, file, db };
  }

  /** A turn waiting on one request, allowed with every WAL sync held; the resume claim is heard at commit. */
  async function allowWithSyncsHeld() {
    const { store } = open();
    const { approval } = await awaitingTurn(store, Date.now());
    const syncs = holdWalSyncs();
    const handed: ClaimedTurn[] = [];
    const decided = store.approvals.resolve(
      { requestId: approval.requestId, decision: 'allowed', decidedBy: 'UAPPROVER', always: false },
      { lease: leaseA, onClaimed: (claim) => handed.push(claim) },
    );
    return { decided, handed, syncs };
  }

  it('resolves a write only once the WAL has been synced after its commit', async () => {
    const { store } = open();
    const syncs = holdWalSyncs();

    const write = store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    const done = settled(write);
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    // Committed (readable) but not yet reported: whoever waits on it acts only once it is on disk.
    expect(await store.turns.get('turn-1')).toBeDefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done()).toBe(false);

    syncs.release();
    expect((await write).type).toBe('enqueued');
  });

  it('starts a second sync for a commit that lands during one; later commits share the next', async () => {
    const { store } = open();
    const syncs = holdWalSyncs();

    const first = store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    const second = store.turns.enqueue(newTurn(thread('1700.2'), 'turn-2'));
    await vi.waitFor(() => expect(syncs.held).toHaveLength(2));
    const third = store.turns.enqueue(newTurn(thread('1700.3'), 'turn-3'));
    const fourth = store.turns.enqueue(newTurn(thread('1700.4'), 'turn-4'));
    const done = [first, second, third, fourth].map(settled);
    await new Promise((resolve) => setImmediate(resolve));
    // Two run at once at most: the third and fourth commits wait, together.
    expect(syncs.held).toHaveLength(2);
    expect(done.map((isDone) => isDone())).toEqual([false, false, false, false]);

    // The later sync began after the first two commits: its end releases both, whatever the first does.
    syncs.releaseLast();
    await Promise.all([first, second]);
    expect(done.map((isDone) => isDone())).toEqual([true, true, false, false]);
    await vi.waitFor(() => expect(syncs.held).toHaveLength(2));

    syncs.release();
    await Promise.all([third, fourth]);
    expect(syncs.spy).toHaveBeenCalledTimes(3);
  });

  it('catches up at once when a finished sync covers every commit, and joins the one running otherwise', async () => {
    const { store } = open();
    await store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    const syncs = holdWalSyncs();
    // Nothing committed since the last sync: no sync of its own.
    await store.durable?.();
    expect(syncs.spy).not.toHaveBeenCalled();

    const write = store.turns.enqueue(newTurn(thread('1700.2'), 'turn-2'));
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    const caughtUp = settled(store.durable?.() ?? Promise.reject(new Error('no durable')));
    await new Promise((resolve) => setImmediate(resolve));
    // The sync already running covers the commit: it waits for that one, and starts none.
    expect([caughtUp(), syncs.held.length]).toEqual([false, 1]);

    syncs.release();
    await write;
    await vi.waitFor(() => expect(caughtUp()).toBe(true));
    expect(syncs.spy).toHaveBeenCalledTimes(1);
  });

  it('hands a claimed turn over at commit, while the acknowledgement waits for the sync', async () => {
    const { store } = open();
    const syncs = holdWalSyncs();
    const handed: ClaimedTurn[] = [];

    const admitted = store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'), leaseA, undefined, (claim) =>
      handed.push(claim),
    );
    const acknowledged = settled(admitted);
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    // The turn may call its model now; what it shows anyone waits for a later commit's sync.
    expect(handed.map((claim) => [claim.turn.id, claim.turn.status])).toEqual([['turn-1', 'running']]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(acknowledged()).toBe(false);

    syncs.release();
    expect(await admitted).toMatchObject({ type: 'enqueued', claim: { fence: handed[0]?.fence } });
  });

  it("hands the resume claim over at the decision's commit; the call it starts waits for the sync", async () => {
    const { decided, handed, syncs } = await allowWithSyncsHeld();
    const replied = settled(decided);
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    // The resumed turn may read its transcript now; what it runs first waits for this commit's sync.
    expect(handed.map((claim) => [claim.mode, claim.turn.status])).toEqual([['resume', 'running']]);
    const onDisk = settled(handed[0]?.onDisk ?? Promise.reject(new Error('no onDisk')));
    await new Promise((resolve) => setImmediate(resolve));
    expect([replied(), onDisk()]).toEqual([false, false]);

    syncs.release();
    expect(await decided).toMatchObject({ type: 'decided', claim: { fence: handed[0]?.fence } });
    await vi.waitFor(() => expect(onDisk()).toBe(true));
  });

  it("fails the resume claim's wait when the decision's sync fails", async () => {
    const { decided, handed, syncs } = await allowWithSyncsHeld();
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    syncs.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));

    const error = await decided.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    // The call it would have run first is never told its decision is on disk.
    expect(await handed[0]?.onDisk?.catch((caught: unknown) => caught)).toBe(error);
  });

  it('resolves a tool result at commit; the answer after it waits for a sync, which covers both', async () => {
    const { store, file } = open();
    const started = await startTurn(store);
    const id = started.conversationId;
    await store.transcript.append(started.fence, id, {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'call_1', name: 'noop', arguments: '{}' }],
    });
    const syncs = holdWalSyncs();

    const call = { conversationId: id, transcriptId: id, turnId: 'turn-1', toolCallId: 'call_1' };
    expect(await store.transcript.recordToolResult(started.fence, call, 'ok')).toBe(true);
    expect(syncs.held).toHaveLength(0);
    const answered = store.turns.complete(started.fence, {
      answer: 'Done.',
      kv: { values: {}, children: {} },
    });
    const done = settled(answered);
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(done()).toBe(false);

    syncs.release();
    await answered;
    store.close();
    const reopened = createSqliteStore(openDatabase(file, { synchronous: 'FULL' }));
    expect((await reopened.transcript.messages(id)).map((message) => message.message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);
    reopened.close();
  });

  it('fails only its own write when what it tells at commit throws', async () => {
    const { store, db } = open();
    const broken = new Error('a listener that throws');
    const first = queueWrite(
      db,
      () => db.prepare("INSERT INTO audit_events (at, actor, kind) VALUES (1, 'a', 'x')").run(),
      {
        onCommit: () => {
          throw broken;
        },
      },
    );
    const second = store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));

    await expect(first).rejects.toBe(broken);
    expect((await second).type).toBe('enqueued');
    // Committed all the same: the error is the listener's, not the write's.
    expect(db.prepare("SELECT count(*) FROM audit_events WHERE actor = 'a'").pluck().get()).toBe(1);
  });

  it('reports a write whose sync failed as failed, and writes nothing more, though the disk syncs again', async () => {
    const { store } = open();
    const syncs = holdWalSyncs();

    const write = store.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    const waitingForTheSameSync = store.turns.enqueue(newTurn(thread('1700.2'), 'turn-2'));
    syncs.release(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));

    const error = await write.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).reason).toBe('SQLITE_IOERR_FSYNC');
    expect(await waitingForTheSameSync.catch((caught: unknown) => caught)).toBe(error);

    // Linux may have dropped the pages it could not write and now syncs without them: a commit after the
    // hole would be reported durable and lost on recovery. So nothing more is committed.
    syncs.spy.mockRestore();
    expect(
      await store.turns.enqueue(newTurn(thread('1700.3'), 'turn-3')).catch((caught: unknown) => caught),
    ).toBe(error);
    expect(await store.turns.get('turn-3')).toBeUndefined();
    // Readiness reads the same query: the process says it is not ready until it restarts.
    await expect(store.waiting()).rejects.toBe(error);
  });

  it('syncs what is committed when the store closes, and keeps it across a reopen', async () => {
    const { store: first, file } = open();
    await first.turns.enqueue(newTurn(thread('1700.1'), 'turn-1'));
    first.close();
    store = createSqliteStore(openDatabase(file, { synchronous: 'FULL' }));
    expect((await store.turns.get('turn-1'))?.id).toBe('turn-1');
  });
});
