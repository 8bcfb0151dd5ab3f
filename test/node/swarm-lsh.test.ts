import { swarmScenario } from '../support/scenario.ts';

swarmScenario(
  'LSH index (n = 20, m = 1)',
  { index: { mode: 'lsh', n: 20, m: 1, seed: 'test-lsh' } },
  40,
);
