import { defineConfig } from 'vitest/config';

// Long experiments (churn over many republish periods, byte ratios of whole swarms, the collision
// rates of the LSH families besides the default):
// `npm run test:slow`. They must pass too; they are kept out of `npm test` for its run time.
export default defineConfig({
  test: {
    // Every temporary file of the run under one directory, removed at the end.
    globalSetup: ['test/support/temp-root.ts'],
    include: ['test/slow/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
