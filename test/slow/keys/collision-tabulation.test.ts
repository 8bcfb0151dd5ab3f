import { collisionSuite } from '../../support/collision-check.ts';

collisionSuite('tabulation');
