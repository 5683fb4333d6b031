import { defineConfig } from 'vitest/config';

/**
 * The PostgreSQL suite: the store contract and the flows on a PostgreSQL server, run by
 * `npm run test:postgres` (which starts a throwaway cluster and sets HOLDFAST_TEST_POSTGRES_URL). Kept out
 * of `npm test` so a developer without PostgreSQL runs the SQLite suite alone; without the URL these
 * files fail, never skip.
 */
export default defineConfig({
  test: {
    include: ['src/**/*.postgres.test.ts', 'test/**/*.postgres.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
