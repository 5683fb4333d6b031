import { describe, expect, it } from 'vitest';
import { openTestStore } from '../../test/support/open-test-store.js';
import { tempDir } from '../../test/support/temp-dir.js';
import { createTestClock } from '../../test/support/test-clock.js';
import { createTestLogger } from '../../test/support/test-logger.js';
import type { InboundMessage } from '../store/store.js';
import { InboundQueue, inboundTakeOverMs } from './inbound-queue.js';

function setup() {
  const clock = createTestClock();
  const file = tempDir().file('holdfast.db');
  const { store } = openTestStore(file, { now: clock.now });
  const log = createTestLogger();
  const queue = new InboundQueue({ store: store.inbound, logger: log.logger, now: clock.now });
  const unsettled = async () =>
    (await store.inbound.unsettled({ receivedBefore: clock.now() + 1, limit: 100 })).map((kept) => kept.key);
  return { clock, store, file, log, queue, unsettled };
}

/** A handler whose calls finish only when the test says so. */
function gatedHandler() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const handler = (message: InboundMessage) =>
    new Promise<{ settled: boolean }>((resolve) => {
      started.push(message.key);
      gates.set(message.key, () => resolve({ settled: false }));
    });
  const finish = (key: string) => gates.get(key)?.();
  return { started, handler, finish };
}

describe('InboundQueue', () => {
  it('handles a lane one message at a time, in the order kept, and lanes side by side', async () => {
    const { queue, unsettled } = setup();
    const { started, handler, finish } = gatedHandler();
    queue.handle(handler);

    await queue.keep({ key: 'a1', lane: 'A', payload: '{}' });
    await queue.keep({ key: 'a2', lane: 'A', payload: '{}' });
    await queue.keep({ key: 'b1', lane: 'B', payload: '{}' });
    await expect.poll(() => started).toEqual(['a1', 'b1']);

    finish('a1');
    // a2 starts once a1 is settled, not before.
    await expect.poll(() => started).toEqual(['a1', 'b1', 'a2']);
    expect(await unsettled()).toEqual(['a2', 'b1']);

    finish('a2');
    finish('b1');
    await queue.idle();
    expect(await unsettled()).toEqual([]);
  });

  it('handles a redelivery of a message it is handling once, and one another process kept at once', async () => {
    const { queue, store, unsettled } = setup();
    const { started, handler, finish } = gatedHandler();
    queue.handle(handler);

    expect(await queue.keep({ key: 'm1', lane: 'A', payload: '{}' })).toEqual({ kept: true });
    expect(await queue.keep({ key: 'm1', lane: 'A', payload: '{}' })).toEqual({ kept: false });
    // Kept by a process that died before handling it; Slack delivers it again to this one.
    await store.inbound.keep({ key: 'm2', lane: 'B', payload: '{}' });
    expect(await queue.keep({ key: 'm2', lane: 'B', payload: '{}' })).toEqual({ kept: false });
    await expect.poll(() => started).toEqual(['m1', 'm2']);

    finish('m1');
    finish('m2');
    await queue.idle();
    expect(started).toEqual(['m1', 'm2']);
    expect(await unsettled()).toEqual([]);
  });

  it('leaves a message it could not handle kept, and the sweep hands it over again once it is old enough', async () => {
    const { queue, clock, log, unsettled } = setup();
    let fail = true;
    const handled: string[] = [];
    queue.handle(async (message) => {
      if (fail) throw new Error('the database is locked');
      handled.push(message.key);
      return { settled: false };
    });

    await queue.keep({ key: 'm1', lane: 'A', payload: '{}' });
    await queue.idle();
    expect(await unsettled()).toEqual(['m1']);
    expect(log.entries.filter((entry) => entry.msg === 'could not make a kept message a turn')).toHaveLength(
      1,
    );

    fail = false;
    // Younger than a live process would leave a message: another replica may be handling it.
    expect(await queue.sweep()).toBe(0);
    clock.advance(inboundTakeOverMs);
    expect(await queue.sweep()).toBe(1);
    await queue.idle();
    expect(handled).toEqual(['m1']);
    expect(await unsettled()).toEqual([]);
  });

  it('at boot takes over everything kept, and after stop takes nothing more', async () => {
    const { queue, store, unsettled } = setup();
    const handled: string[] = [];
    await store.inbound.keep({ key: 'm1', lane: 'A', payload: '{}' });
    await store.inbound.keep({ key: 'm2', lane: 'A', payload: '{}' });
    queue.handle(async (message) => {
      handled.push(message.key);
      return { settled: false };
    });

    expect(await queue.sweep(0)).toBe(2);
    await queue.idle();
    expect(handled).toEqual(['m1', 'm2']);

    await queue.stop(1_000);
    await queue.keep({ key: 'm3', lane: 'A', payload: '{}' });
    await queue.idle();
    expect(handled).toEqual(['m1', 'm2']);
    expect(await unsettled()).toEqual(['m3']);
  });
});
