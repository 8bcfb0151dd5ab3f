import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Long experiments: vitest.slow.config.ts (`npm run test:slow`).
    exclude: ['test/slow/**', '**/node_modules/**'],
    testTimeout: 60_000,
    pool: 'forks',
    // Two cores: one test file per core (network tests are single-threaded CPU work).
    maxWorkers: 2,
  },
});
