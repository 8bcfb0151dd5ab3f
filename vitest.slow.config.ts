import { defineConfig } from 'vitest/config';

// Long real-time experiments (churn over many republish periods, byte ratios of whole swarms):
// `npm run test:slow`. They must pass too; they are kept out of `npm test` for its run time.
export default defineConfig({
  test: {
    include: ['test/slow/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
