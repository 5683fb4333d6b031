/**
 * A second operating-system process on a holdfast database, for races that one thread cannot stage
 * (better-sqlite3 runs every call to completion). Started by `startRaceProcess`; it opens the file named
 * on its command line, says `ready`, and runs each race it is sent as fast as it can.
 */
import { z } from 'zod';
import { openDatabase } from '../../src/store/open-database.js';
import { createSqliteStore } from '../../src/store/sqlite/create-sqlite-store.js';
import { raceSchema } from './store-race-message.js';
import { newTurn, thread } from './store-rows.js';

const [file, owner] = z.tuple([z.string(), z.string()]).parse(process.argv.slice(2));
const store = createSqliteStore(openDatabase(file, { synchronous: 'OFF' }));
const lease = { owner, durationMs: 600_000 };

async function run(race: z.output<typeof raceSchema>): Promise<string[]> {
  const outcomes: string[] = [];
  switch (race.type) {
    case 'claim-turns':
      for (const id of race.ids) outcomes.push((await store.turns.claim(id, lease)).type);
      break;
    case 'decide':
      for (const id of race.ids) {
        const result = await store.approvals.resolve({
          requestId: id,
          decision: race.decision,
          decidedBy: owner,
        });
        outcomes.push(result.type);
      }
      break;
    case 'enqueue':
      for (const ts of race.ids) {
        const result = await store.turns.enqueue(
          newTurn(thread(ts), `${owner}-${ts}`, { ts: `${ts}.${owner}` }),
          lease,
        );
        outcomes.push(result.type === 'enqueued' && result.claim ? 'started' : result.type);
      }
      break;
    case 'claim-outbox':
      for (const id of race.ids)
        outcomes.push((await store.outbox.claim(Number(id), lease)) ? 'claimed' : 'refused');
      break;
  }
  return outcomes;
}

process.on('message', (message: unknown) => {
  run(raceSchema.parse(message)).then(
    (outcomes) => process.send?.({ type: 'done', outcomes }),
    (error: unknown) => process.send?.({ type: 'failed', error: String(error) }),
  );
});
process.on('disconnect', () => {
  store.close();
  process.exit(0);
});
process.send?.({ type: 'ready' });
