import { describe } from 'vitest';
import { postgresInspector, postgresTestSchema } from '../../../test/support/postgres-test-database.js';
import { createTestClock } from '../../../test/support/test-clock.js';
import { type ContractDatabase, describeStoreContract } from '../contract/store-contract.js';
import type { Store } from '../store.js';

/** A fresh schema for one test; every store on it shares the test's clock. */
async function openPostgresContractDatabase(): Promise<ContractDatabase> {
  const clock = createTestClock();
  const database = postgresTestSchema();
  let first: Store = await database.open({ clock: clock.now });
  return {
    clock,
    get store() {
      return first;
    },
    inspect: postgresInspector(database.query),
    openAnother: () => database.open({ clock: clock.now }),
    async restart() {
      await first.close();
      first = await database.open({ clock: clock.now });
      return first;
    },
  };
}

describe('PostgreSQL store', () => {
  describeStoreContract(openPostgresContractDatabase);
});
