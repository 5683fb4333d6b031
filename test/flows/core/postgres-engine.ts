import { postgresTestSchema } from '../../support/postgres-test-database.js';
import type { CoreEngine } from './core-harness.js';

/** PostgreSQL on a fresh schema of the test server for the current test. */
export function postgresEngine(): CoreEngine {
  const database = postgresTestSchema();
  return {
    open: (clock) => database.open({ clock }),
    rows: (sql) => database.query(sql),
  };
}
