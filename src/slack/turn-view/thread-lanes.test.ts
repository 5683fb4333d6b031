import { describe, expect, it } from 'vitest';
import { createTestLogger } from '../../../test/support/test-logger.js';
import { ThreadLanes } from './thread-lanes.js';

function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('ThreadLanes', () => {
  it('runs a thread’s updates in the order they were queued, and goes on after one fails', async () => {
    const { logger, entries } = createTestLogger();
    const lanes = new ThreadLanes(logger);
    const ran: string[] = [];
    const first = gate();
    void lanes.add('T:C:1', async () => {
      await first.opened;
      ran.push('first');
    });
    void lanes.add('T:C:1', async () => {
      ran.push('second');
      throw new Error('reaction refused');
    });
    void lanes.add('T:C:1', async () => {
      ran.push('third');
    });
    first.open();
    await lanes.idle();
    expect(ran).toEqual(['first', 'second', 'third']);
    expect(entries.filter((entry) => entry.msg === 'could not update the thread status')).toHaveLength(1);
  });
});
