import { defineConfig } from 'vitest/config';

/** Replays the real third-party payloads kept beside the project (../shared); fails when they are missing. */
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
