import { defineConfig } from 'vitest/config';

// Long experiments (churn over many republish periods, byte ratios of whole swarms, the collision
// rates of the LSH families besides the default), and the fuzz files again with 10,000 cases a
// property instead of `npm test`'s 1,000 (test/net/fuzz/check.ts):
// `npm run test:slow`. They must pass too; they are kept out of `npm test` for its run time.
export default defineConfig({
  test: {
    // Every temporary file of the run under one directory, removed at the end.
    globalSetup: ['test/support/temp-root.ts'],
    include: ['test/slow/**/*.test.ts', 'test/**/fuzz/*.test.ts'],
    env: { CIDX_FUZZ_RUNS: '10000' },
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
