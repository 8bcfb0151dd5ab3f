import { afterAll, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import { indexKeys } from '../../../src/keys/index-keys.ts';
import type { CidxNode } from '../../../src/node/node.ts';
import { parseProfile } from '../../../src/profile/parse.ts';
import { hex } from '../../../src/util/bytes.ts';
import { stopAll, waitFor } from '../../support/swarm.ts';
import { cidxNode } from './hosts.ts';

/**
 * A partition of half the nodes (more if the records' holders are more), on real nodes over
 * the network model: a community all of whose records are held on the other side of the cut
 * cannot be found; after the heal and one republish round it is found again.
 */
describe('searching across a partition (12 nodes, half cut off)', () => {
  const NODES = 12;
  const net = new SimNetwork({ seed: 6, latencyMs: 10 });
  const nodes: CidxNode[] = [];
  const swarm = { index: { mode: 'attribute' as const }, replicas: 2 };
  afterAll(async () => {
    await stopAll(nodes);
    net.close();
  });

  it('does not find a community held only on the other side; after heal and republish it does', async () => {
    for (let i = 0; i < NODES; i++) {
      const bootstrap = nodes.slice(0, 3).map((n) => n.addrs[0] as string);
      nodes.push(await cidxNode(net, `n${i}`, { swarm, bootstrap }));
    }
    await waitFor(() => nodes.every((n) => n.info().peers.profiles >= 4), 60_000, 'routing tables');
    // One attribute: one key, so its descriptor and its contacts have a few holders only.
    const profile = parseProfile({ weights: { 'partition-only-attribute': 1 } });
    const owner = nodes[0] as CidxNode;
    const { id } = await owner.create(profile);
    const [key] = indexKeys(profile, owner.swarm.params.index).map(hex);
    const now = Date.now();
    const holds = (n: CidxNode) =>
      n === owner ||
      [...n.table.descriptors(key as string, now)].some((d) => d.id === id) ||
      n.table.contacts(id, now).contacts !== undefined;
    const holders = nodes.filter(holds);
    expect(holders.length).toBeGreaterThan(1);
    // The owner, the key's replicas and the replicas its contacts were handed on to: 7 of 12
    // in about one run in six, so the cut side is the holders, filled up to half; the askers are
    // all on the other side.
    expect(holders.length).toBeLessThanOrEqual(NODES - 3);
    const side = [...holders, ...nodes.filter((n) => !holds(n))].slice(
      0,
      Math.max(NODES / 2, holders.length),
    );
    const others = nodes.filter((n) => !side.includes(n));
    const name = (n: CidxNode) => `n${nodes.indexOf(n)}`;
    const asker = others[0] as CidxNode;
    expect((await asker.search(profile, { k: 1 }))[0]?.id).toBe(id);

    net.partition(side.map(name));
    const during = await asker.search(profile, { k: 1 }).catch(() => []);
    expect(during.map((r) => r.id)).not.toContain(id);
    // On its own side it is still found.
    expect((await (side[side.length - 1] as CidxNode).search(profile, { k: 1 }))[0]?.id).toBe(id);

    net.heal();
    await owner.republish();
    for (const n of others) {
      const [best] = await n.search(profile, { k: 1 });
      expect(best?.id).toBe(id);
      expect(best?.similarity).toBe(1);
    }
  }, 240_000);
});
