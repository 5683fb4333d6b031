import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: [
      '**/*.postgres.test.ts',
      'test/e2e/**',
      'test/conformance/**',
      'test/crash/**',
      'test/build/**',
      'node_modules/**',
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
  },
});
