/**
 * The same cycle on threads that already hold 10, 1,000 and 5,000 messages: what a step costs must not
 * grow with the thread, since a run reads a bounded tail of it once and the model gets what fits its
 * context budget.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import type { SynchronousMode } from '../src/store/open-database.js';
import { buildHoldfastHarness } from './holdfast-cycle.js';
import { percentile } from './percentile.js';

export interface ThreadLengthResult {
  readonly priorMessages: number;
  readonly p50: number;
  readonly p99: number;
}

const thread = '1800000000.000001';
/** An ordinary exchange's size: a question and a paragraph of answer. */
const question = 'Which pods of the payments service restarted overnight, and why? '.repeat(2);
const answer = 'Two pods restarted after failing their liveness probe at 03:12; memory was steady. '.repeat(
  4,
);

/** Older exchanges written straight into the thread's transcript, as months of use would leave them. */
function seedThread(file: string, priorMessages: number): void {
  const db = new Database(file);
  try {
    const turn = db.prepare('SELECT id, conversation_id FROM turns ORDER BY seq LIMIT 1').get() as {
      id: string;
      conversation_id: string;
    };
    const insert = db.prepare(
      `INSERT INTO messages (conversation_id, transcript_id, turn_id, role, content, created_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
    );
    // Older than the cycle that created the thread: they go before it, by sequence.
    db.exec('UPDATE messages SET seq = seq + 1000000');
    db.exec(`UPDATE sqlite_sequence SET seq = 0 WHERE name = 'messages'`);
    db.transaction(() => {
      for (let i = 0; i < priorMessages; i++) {
        insert.run(
          turn.conversation_id,
          turn.conversation_id,
          turn.id,
          i % 2 === 0 ? 'user' : 'assistant',
          i % 2 === 0 ? `@requester: ${question}` : answer,
          i,
        );
      }
    })();
    db.exec(`UPDATE sqlite_sequence SET seq = (SELECT max(seq) FROM messages) WHERE name = 'messages'`);
  } finally {
    db.close();
  }
}

/**
 * Every length's cycles interleaved (one cycle on each thread in turn), so their ratio is measured side by
 * side rather than minutes apart on a machine whose speed drifts.
 */
export async function measureThreadLengths(
  workdir: string,
  lengths: readonly number[],
  options: { readonly cycles: number; readonly synchronous: SynchronousMode },
): Promise<ThreadLengthResult[]> {
  const harnesses = [];
  for (const priorMessages of lengths) {
    const file = path.join(workdir, `thread-${priorMessages}.db`);
    const first = buildHoldfastHarness(file, { synchronous: options.synchronous });
    await first.cycle(thread);
    await first.close();
    seedThread(file, priorMessages);
    harnesses.push({
      priorMessages,
      harness: buildHoldfastHarness(file, { synchronous: options.synchronous }),
      durations: [] as number[],
    });
  }
  const warmup = 10;
  for (let i = 0; i < warmup + options.cycles; i++) {
    const message = `1800000001.${String(i).padStart(6, '0')}`;
    for (const entry of harnesses) {
      const started = performance.now();
      await entry.harness.cycle(thread, message);
      if (i >= warmup) entry.durations.push(performance.now() - started);
    }
  }
  for (const entry of harnesses) await entry.harness.close();
  return harnesses.map((entry) => ({
    priorMessages: entry.priorMessages,
    p50: percentile(entry.durations, 50),
    p99: percentile(entry.durations, 99),
  }));
}
