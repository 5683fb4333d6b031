import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../../test/support/open-test-store.js';
import { tempDir } from '../../../test/support/temp-dir.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { startTurn, thread } from '../contract/contract-fixtures.js';
import {
  type ContractDatabase,
  type ContractInspector,
  describeStoreContract,
  type ToolExecutionRecord,
} from '../contract/store-contract.js';
import { StoredRowInvalidError } from '../store-errors.js';
import { type OutboxRow, toOutboxEntry } from './sqlite-outbox.js';
import { rootConversationOf } from './sqlite-transcript.js';

/** The inspector reads the file through its own connection, as an operator's sqlite3 shell would. */
function sqliteInspector(db: Database.Database): ContractInspector {
  const outbox = db.prepare<[], OutboxRow>('SELECT * FROM outbox ORDER BY id');
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
    const refused = await store.transcript.messages(conversationId).catch((error: unknown) => error);
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
