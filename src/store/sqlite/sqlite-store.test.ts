import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/support/open-test-store.js';
import { finalAnswerOf, transcriptOf } from '../../../test/support/store-reads.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { enqueueClaimed, leaseA, newTurn, startTurn, thread } from '../contract/contract-fixtures.js';
import {
  type ContractDatabase,
  type ContractInspector,
  describeStoreContract,
  type ToolExecutionRecord,
} from '../contract/store-contract.js';
import { type MessageRow, toStored } from '../row-mappers.js';
import {
  isStoreFault,
  StoreBusyError,
  StoredRowInvalidError,
  StoreUnavailableError,
} from '../store-errors.js';
import { type OutboxRow, toOutboxEntry } from './sqlite-outbox.js';
import { rootConversationOf } from './sqlite-transcript.js';

/** The inspector reads the file through its own connection, as an operator's sqlite3 shell would. */
function sqliteInspector(db: Database.Database): ContractInspector {
  const outbox = db.prepare<[], OutboxRow>('SELECT * FROM outbox ORDER BY id');
  const messages = db.prepare<[], MessageRow>('SELECT * FROM messages ORDER BY seq');
  const tools = db.prepare<[], ToolExecutionRecord>(
    `SELECT transcript_id AS transcriptId, tool_call_id AS toolCallId, status, started_at AS startedAt,
       finished_at AS finishedAt
     FROM tool_executions ORDER BY started_at, rowid`,
  );
  return {
    async outbox() {
      return outbox.all().map(toOutboxEntry);
    },
    async toolExecutions() {
      return tools.all();
    },
    async messages() {
      return messages.all().map(toStored);
    },
  };
}

/** A fresh database file for one test; every connection to it closes when the test ends. */
async function openSqliteContractDatabase(): Promise<ContractDatabase> {
  const clock = createTestClock();
  const file = tempDir().file('holdfast.db');
  let first = openTestStore(file, { now: clock.now });
  const inspector = openTestStore(file, { now: clock.now });
  return {
    clock,
    get store() {
      return first.store;
    },
    inspect: sqliteInspector(inspector.db),
    async openAnother() {
      return openTestStore(file, { now: clock.now }).store;
    },
    async restart() {
      first.store.close();
      first = openTestStore(file, { now: clock.now });
      return first.store;
    },
  };
}

describe('SQLite store', () => {
  describeStoreContract(openSqliteContractDatabase);
});

describe('SQLite store, what only this adapter has', () => {
  it('maps a nested transcript to its conversation', () => {
    const id = 'T1:C1:1700.1';
    expect(rootConversationOf(`${id}>call_1`)).toBe(id);
    expect(rootConversationOf(`${id}>call_1>call_2`)).toBe(id);
    expect(rootConversationOf(id)).toBe(id);
  });

  it('names the row when stored tool calls do not parse', async () => {
    const clock = createTestClock();
    const { store, db } = openTestStore(tempDir().file('holdfast.db'), { now: clock.now });
    const { fence, conversationId } = await startTurn(store, { key: thread('1700.1') });
    const stored = await store.transcript.append(fence, conversationId, {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'call_1', name: 'shell', arguments: '{}' }],
    });
    db.prepare('UPDATE messages SET tool_calls_json = ? WHERE seq = ?').run('[{"id":1}]', stored.seq);
    const refused = await transcriptOf(store, conversationId).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoredRowInvalidError);
    expect(refused).toMatchObject({ table: 'messages', key: String(stored.seq) });
  });

  it('names the row when audit data is not a JSON object', async () => {
    const { store, db } = openTestStore(tempDir().file('holdfast.db'));
    await store.audit.record({ actor: 'U1', kind: 'tool.started' });
    db.prepare(`UPDATE audit_events SET data_json = '[1'`).run();
    await expect(store.audit.list()).rejects.toBeInstanceOf(StoredRowInvalidError);
  });
});

describe('SQLite delivery records', () => {
  it('records a delivered row in a commit of its own: on the file once complete resolves', async () => {
    const file = tempDir().file('holdfast.db');
    const { store } = openTestStore(file);
    const [row] = await enqueueClaimed(
      store,
      [
        {
          key: 'notice:2',
          conversationId: 'T:C:1',
          message: { type: 'turn-notice', turnId: 't', notice: { type: 'failed', code: 'x', message: 'y' } },
        },
      ],
      leaseA,
    );
    const recorded = await store.outbox.complete([
      { id: row!.id, claim: { owner: leaseA.owner, token: 1 }, progress: { sent: [] } },
    ]);
    expect(recorded).toEqual([true]);
    // Read by another connection while the store is still open: nothing waits for a later commit.
    const check = new Database(file, { readonly: true });
    expect(check.prepare('SELECT status FROM outbox').pluck().get()).toBe('sent');
    check.close();
  });
});

describe('SQLite storage faults', () => {
  /** The file may not grow: the next write that needs a new page fails as on a full disk. */
  function fillDisk(db: Database.Database): () => void {
    db.pragma(`max_page_count = ${Number(db.pragma('page_count', { simple: true }))}`);
    return () => db.pragma('max_page_count = 1073741823');
  }

  it('refuses a write on a full disk with StoreUnavailableError, writes nothing, and works once there is room', async () => {
    const { store, db } = openTestStore(tempDir().file('holdfast.db'));
    const clearFault = fillDisk(db);
    const mention = newTurn(thread('1700.1'), 'turn-1', { text: 'x'.repeat(100_000) });
    const refused = await store.turns.enqueue(mention, leaseA).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect(refused).toMatchObject({ code: 'store_unavailable' });
    expect(isStoreFault(refused)).toBe(true);
    expect(await store.turns.get('turn-1')).toBeUndefined();
    clearFault();
    expect(await store.turns.enqueue(mention, leaseA)).toMatchObject({
      type: 'enqueued',
      claim: { mode: 'start' },
    });
  });

  it('rolls a fenced completion back whole on a full disk, and completes once there is room', async () => {
    const { store, db } = openTestStore(tempDir().file('holdfast.db'));
    const { fence, conversationId } = await startTurn(store);
    const answer = {
      key: 'answer:turn-1',
      conversationId,
      turnId: 'turn-1',
      message: { type: 'answer' as const, turnId: 'turn-1', text: 'y'.repeat(100_000) },
    };
    const result = { answer: answer.message.text, kv: { values: { done: true }, children: {} } };
    const clearFault = fillDisk(db);
    await expect(store.turns.complete(fence, result, { outbox: [answer] })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect(await store.turns.get('turn-1')).toMatchObject({ status: 'running', leaseOwner: 'proc-a' });
    expect(await finalAnswerOf(store, 'turn-1')).toBeUndefined();
    expect(await store.outbox.nextPending(conversationId)).toBeUndefined();
    clearFault();
    await store.turns.complete(fence, result, { outbox: [answer] });
    expect(await store.turns.get('turn-1')).toMatchObject({ status: 'completed' });
    expect((await store.outbox.nextPending(conversationId))?.key).toBe('answer:turn-1');
  });

  it('refuses a write while another process holds the lock past busy_timeout, and works once it lets go', async () => {
    const file = tempDir().file('holdfast.db');
    const { store } = openTestStore(file, { busyTimeoutMs: 0 });
    const other = new Database(file);
    other.prepare('BEGIN IMMEDIATE').run();
    try {
      const refused = await store.audit.record({ actor: 'U1', kind: 'tool.started' }).catch((error) => error);
      expect(refused).toBeInstanceOf(StoreBusyError);
      expect(refused).toMatchObject({ code: 'store_busy' });
      expect(isStoreFault(refused)).toBe(true);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
    }
    await store.audit.record({ actor: 'U1', kind: 'tool.started' });
    expect(await store.audit.list()).toHaveLength(1);
  });
});
