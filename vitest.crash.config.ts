import { configDefaults, defineConfig } from 'vitest/config';

/**
 * holdfast as child processes on one database file, killed with SIGKILL at named points and started
 * again. Files run one at a time: each test starts whole processes, and timing figures are reported.
 */
export default defineConfig({
  test: {
    include: ['test/crash/**/*.test.ts'],
    // The replicas on PostgreSQL run with the PostgreSQL suite (npm run test:postgres).
    exclude: [...configDefaults.exclude, '**/*.postgres.test.ts'],
    testTimeout: 240_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['verbose'],
  },
});
