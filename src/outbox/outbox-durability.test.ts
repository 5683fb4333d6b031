import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { holdWalSyncs } from '../../test/support/hold-wal-syncs.js';
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

  function start(port: DeliveryPort): { store: Store; worker: OutboxWorker } {
    store = createSqliteStore(openDatabase(tempDir('holdfast-outbox-').file('holdfast.db')));
    const started = new OutboxWorker({
      store,
      port,
      identity: { owner: 'proc-a', ownerGone: () => false },
      claimMs: 60_000,
      logger: pino({ level: 'silent' }),
    });
    worker = started;
    store.outbox.listen?.((conversationId) => started.kick(conversationId));
    return { store, worker: started };
  }

  it('reads a row the moment it commits and sends it only once the commit is on disk', async () => {
    const slack = recordingPort();
    const { store, worker } = start(slack.port);
    const syncs = holdWalSyncs();

    const written = store.outbox.enqueue([noticeEntry('first', conversation)], worker.lease);
    await vi.waitFor(() => expect(syncs.held).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(slack.sent).toEqual([]);

    syncs.spy.mockRestore();
    syncs.release();
    await written;
    await vi.waitFor(() => expect(slack.sent).toEqual(['notice:first']));
  });

  it('does not send a row a running drain finds before its commit is on disk', async () => {
    const slack = recordingPort();
    const { store, worker } = start(slack.port);
    // Slack is slow on the first row: the drain is still busy in this thread when the second commits.
    slack.hold();
    await store.outbox.enqueue([noticeEntry('first', conversation)], worker.lease);
    const syncs = holdWalSyncs();
    const written = store.outbox.enqueue([noticeEntry('second', conversation)], worker.lease);
    await vi.waitFor(() => expect(syncs.held.length).toBeGreaterThan(0));

    slack.letGo();
    await vi.waitFor(() => expect(slack.sent).toEqual(['notice:first']));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // A power loss now would lose the row: nobody may have seen it.
    expect(slack.sent).toEqual(['notice:first']);

    syncs.spy.mockRestore();
    syncs.release();
    await written;
    await vi.waitFor(() => expect(slack.sent).toEqual(['notice:first', 'notice:second']));
  });
});
