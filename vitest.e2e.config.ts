import { defineConfig } from 'vitest/config';

/** Local mode driven in Debian's Chromium through playwright-core. */
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
