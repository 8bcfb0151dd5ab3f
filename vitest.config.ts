import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Every temporary file of the run under one directory, removed at the end.
    globalSetup: ['test/support/temp-root.ts'],
    include: ['test/**/*.test.ts'],
    // Long experiments: vitest.slow.config.ts (`npm run test:slow`).
    exclude: ['test/slow/**', '**/node_modules/**'],
    // Bounds on a hang, not speed targets: on a loaded 2-core machine a 20-node swarm test takes
    // minutes, and a tighter bound would fail a test that would have passed.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // One worker process runs many files: libp2p's module graph is imported once per worker, not
    // once per file (the suite took 18 % less time; docs/BENCHMARKS.md). Every file stops what
    // it starts, and spies are restored where they are made.
    isolate: false,
    // Two cores: one test file per core (network tests are single-threaded CPU work).
    maxWorkers: 2,
  },
});
