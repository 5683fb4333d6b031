import { defineConfig } from 'vitest/config';

/** The production build: `npm run build`, then `node dist/main.js` (a full compile, so not in `npm test`). */
export default defineConfig({
  test: {
    include: ['test/build/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
