import { describe, expect, it } from 'vitest';
import { postgresTestSchema } from '../../../test/support/postgres-test-database.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { newTurn, thread } from '../contract/contract-fixtures.js';
import { conversationId } from '../conversation-id.js';

/** Backends of the schema waiting on a lock (a row, an advisory lock), as an operator's psql would see. */
async function waitingOnLocks(database: ReturnType<typeof postgresTestSchema>): Promise<number> {
  const [row] = await database.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return row?.n ?? 0;
}

describe('admission of one person’s turns on PostgreSQL', () => {
  it('counts one person’s unfinished turns one message at a time, across threads and replicas', async () => {
    const clock = createTestClock();
    const database = postgresTestSchema();
    const [replicaA, replicaB] = [
      await database.open({ clock: clock.now }),
      await database.open({ clock: clock.now }),
    ];
    const limits = { perThread: 5, perUser: 1 };
    const elsewhere = newTurn(thread('2900.1'), 'elsewhere', { user: 'USOMEONE' });
    expect((await replicaA.turns.enqueue(elsewhere)).type).toBe('enqueued');

    // A session holds a row with the first message's trigger key, uncommitted: replica A's enqueue counts
    // the person's unfinished turns, then waits at its insert, with the count not yet committed.
    const first = newTurn(thread('3000.1'), 'first');
    const holder = await database.connection();
    await holder.query('BEGIN');
    await holder.query(
      `INSERT INTO turns (id, conversation_id, status, trigger_key, trigger_ts, requested_by, input_text,
         created_at, updated_at)
       VALUES ('held', $1, 'completed', $2, '3000.1', 'USOMEONE', 'held', 0, 0)`,
      [conversationId(elsewhere), first.triggerKey],
    );
    const firstResult = replicaA.turns.enqueue(first, undefined, limits);
    await expect.poll(() => waitingOnLocks(database)).toBe(1);

    // The same person in another thread, on another replica, while the first is still being admitted.
    let secondSettled = false;
    const secondResult = replicaB.turns
      .enqueue(newTurn(thread('3100.1'), 'second'), undefined, limits)
      .finally(() => {
        secondSettled = true;
      });
    await expect.poll(async () => secondSettled || (await waitingOnLocks(database)) === 2).toBe(true);
    await holder.query('ROLLBACK');

    expect((await firstResult).type).toBe('enqueued');
    expect(await secondResult).toEqual({ type: 'refused', reason: 'user-busy', unfinished: 1 });
    expect(await replicaB.turns.get('second')).toBeUndefined();
  });
});
