/**
 * Churn through the node API: the six non-owners holding most descriptors crash, owners
 * republish, and every community is found first from two survivors each. The simulator's case
 * of the same property runs in `npm test` (test/sim/run.test.ts, 30 % of the holders crashed);
 * this one, on a 20-node swarm, takes several times as long.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { CidxNode } from '../../../src/node/node.ts';
import { startSwarm, stopAll, variedProfiles } from '../../support/swarm.ts';

describe('churn', () => {
  let nodes: CidxNode[] = [];
  afterAll(async () => {
    await stopAll(nodes);
  });

  it('killing 30% of the nodes, record holders among them, loses no community once owners republish', async () => {
    nodes = await startSwarm(20);
    const owners = nodes.slice(0, 10);
    const profiles = variedProfiles(20, 30, 21);
    const ids: string[] = [];
    for (const [i, p] of profiles.entries())
      ids.push((await (owners[i % 10] as CidxNode).create(p)).id);

    // The six non-owners holding the most descriptors go, without warning their peers.
    const victims = nodes
      .slice(10)
      .sort((a, b) => b.info().stored.descriptors - a.info().stored.descriptors)
      .slice(0, 6);
    const lost = victims.reduce((s, v) => s + v.info().stored.descriptors, 0);
    expect(lost).toBeGreaterThan(0);
    await Promise.all(victims.map((v) => v.stop()));
    const survivors = nodes.filter((n) => !victims.includes(n));

    for (const o of owners) {
      const report = await o.republish();
      expect(report.communities).toBe(2);
    }
    for (const [i, p] of profiles.entries()) {
      for (const asker of [
        survivors[(i + 3) % survivors.length],
        survivors[(i + 9) % survivors.length],
      ]) {
        const [best] = await (asker as CidxNode).search(p);
        expect(best?.id).toBe(ids[i]);
        expect(best?.similarity).toBe(1);
      }
    }
  });
});
