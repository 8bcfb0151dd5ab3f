import { swarmScenario } from '../support/scenario.ts';

swarmScenario('per-attribute index', { index: { mode: 'attribute' } }, 14);
