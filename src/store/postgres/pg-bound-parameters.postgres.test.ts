import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresTestSchema } from '../../../test/support/postgres-test-database.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { awaitingTurn, leaseA, startTurn, thread } from '../contract/contract-fixtures.js';

interface SentQuery {
  readonly text: string;
  readonly values: readonly unknown[];
}

/**
 * Records what the driver is asked to send, passing every call through unchanged: the SQL text and the
 * values bound beside it are exactly what goes over the wire.
 */
function recordQueries(): { readonly sent: SentQuery[]; readonly stop: () => void } {
  const sent: SentQuery[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [first, second] = args;
    if (typeof first === 'string') sent.push({ text: first, values: Array.isArray(second) ? second : [] });
    else if (first && typeof first === 'object' && 'text' in first) {
      const config = first as { text: string; values?: unknown[] };
      sent.push({ text: config.text, values: config.values ?? [] });
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  return {
    sent,
    stop: () => {
      pg.Client.prototype.query = original;
    },
  };
}

describe('the PostgreSQL store binds every value', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('never writes a value into the SQL text, even one shaped like SQL', async () => {
    const clock = createTestClock();
    const database = postgresTestSchema();
    const store = await database.open({ clock: clock.now });
    const recorder = recordQueries();
    stop = recorder.stop;

    // A person's text that would break a statement it was pasted into.
    const needle = `it's'); DROP TABLE turns; -- needle-7f3a`;
    const started = await startTurn(store, { key: thread('4100.1'), turnId: 'turn-bound', text: needle });
    await store.transcript.append(started.fence, started.conversationId, {
      role: 'assistant',
      content: needle,
    });
    await awaitingTurn(store, clock.now(), { key: thread('4200.1'), turnId: 'turn-waiting' });
    await store.turns.complete(
      (await startTurn(store, { key: thread('4300.1'), turnId: 'turn-done', lease: leaseA })).fence,
      { answer: needle, kv: { values: {}, children: {} } },
    );

    const sent = recorder.sent;
    expect(sent.length).toBeGreaterThan(10);
    // Several statements never share one message: the extended protocol binds one at a time.
    expect(sent.filter((query) => /;\s*\S/.test(query.text.trim().replace(/;$/, '')))).toEqual([]);
    expect(sent.filter((query) => query.text.includes('needle-7f3a'))).toEqual([]);
    expect(sent.some((query) => query.values.includes(needle))).toBe(true);
    // Every placeholder a statement names has its value beside it.
    for (const query of sent) {
      const highest = Math.max(0, ...[...query.text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1])));
      expect(query.values.length, query.text).toBeGreaterThanOrEqual(highest);
    }
    expect((await store.turns.get('turn-bound'))?.inputText).toBe(needle);
  });
});
