import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../test/support/temp-dir.js';
import { noticeEntry } from '../store/contract/contract-fixtures.js';
import { createSqliteStore, openDatabase, type Store } from '../store/index.js';
import type { DeliveryPort } from './delivery-port.js';
import { OutboxWorker } from './outbox-worker.js';

const conversation = 'T1:C1:1700.1';

/** A port that records what it sends; `hold` makes the next send wait until it is let go. */
function recordingPort() {
  const sent: string[] = [];
  let held: Promise<void> | undefined;
  let letGo = () => {};
  const port: DeliveryPort = {
    plan: async () => ['message'],
    async sendPart(entry) {
      const waiting = held;
      held = undefined;
      await waiting;
      sent.push(entry.key);
      return { channel: 'C1', ts: `${entry.id}.0` };
    },
  };
  return {
    port,
    sent,
    hold() {
      held = new Promise((resolve) => {
        letGo = resolve;
      });
    },
    letGo: () => letGo(),
  };
}

describe('the outbox and the disk', () => {
  let store: Store | undefined;
  let worker: OutboxWorker | undefined;
  afterEach(async () => {
    await worker?.stop(1_000);
    await store?.close();
  });

  function start(port: DeliveryPort): { store: Store; worker: OutboxWorker; file: string } {
    const file = tempDir('holdfast-outbox-').file('holdfast.db');
    store = createSqliteStore(openDatabase(file));
    const started = new OutboxWorker({
      store,
      port,
      identity: { owner: 'proc-a', ownerGone: () => false },
      claimMs: 60_000,
      logger: pino({ level: 'silent' }),
    });
    worker = started;
    store.outbox.listen?.((conversationId) => started.kick(conversationId));
    return { store, worker: started, file };
  }

  /** The row's status as another connection reads the file, as a process after a power cut would. */
  function statusOnFile(file: string, key: string): unknown {
    const other = new Database(file, { readonly: true });
    try {
      return other.prepare('SELECT status FROM outbox WHERE key = ?').pluck().get(key);
    } finally {
      other.close();
    }
  }

  it('sends a row the moment its commit is made, with nobody kicking the worker, and only once it is on the file', async () => {
    const onFile: unknown[] = [];
    const slack = recordingPort();
    const { store, file } = start({
      ...slack.port,
      async sendPart(entry, part) {
        onFile.push(statusOnFile(file, entry.key));
        return slack.port.sendPart(entry, part);
      },
    });

    await store.outbox.enqueue([noticeEntry('first', conversation)]);
    await vi.waitFor(() => expect(slack.sent).toEqual(['notice:first']));
    // A power cut at the moment of the post would still find the row to send.
    expect(onFile).toEqual(['pending']);
    await vi.waitFor(() => expect(statusOnFile(file, 'notice:first')).toBe('sent'));
  });

  it('sends a row a running drain finds while it is busy, after the row before it', async () => {
    const slack = recordingPort();
    const { store } = start(slack.port);
    // Slack is slow on the first row: the drain is still busy in this thread when the second commits.
    slack.hold();
    await store.outbox.enqueue([noticeEntry('first', conversation)]);
    await store.outbox.enqueue([noticeEntry('second', conversation)]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(slack.sent).toEqual([]);

    slack.letGo();
    await vi.waitFor(() => expect(slack.sent).toEqual(['notice:first', 'notice:second']));
  });
});
