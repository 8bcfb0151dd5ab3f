import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CidxNode } from '../../src/node/node.ts';
import { startSwarm, stopAll, variedProfiles } from '../support/swarm.ts';

/**
 * A search attaches a filter of what it already collected; peers leave those descriptors out.
 * Two askers search the same profiles on the same swarm, one with the filter and one without:
 * the answers must be identical and the filtered one must receive fewer bytes.
 */
describe('the seen filter on a 12-node swarm', () => {
  const swarm = { index: { mode: 'lsh' as const, n: 20, m: 1, seed: 'seen' } };
  let nodes: CidxNode[];
  let plain: CidxNode;
  let filtered: CidxNode;
  // Two topics only: every community shares most keys with many others.
  const profiles = variedProfiles(24, 30, 7, 2);

  beforeAll(async () => {
    nodes = await startSwarm(12, { swarm });
    for (const [i, p] of profiles.entries()) await (nodes[i % nodes.length] as CidxNode).create(p);
    const extra = async (seenFilterBytes?: number) => {
      const n = await CidxNode.create({
        transport: 'memory',
        listen: [`/memory/cidx-seen-${seenFilterBytes ?? 'on'}-${Date.now()}`],
        encryption: 'plaintext',
        bootstrap: [nodes[0]?.addrs[0] as string, nodes[5]?.addrs[0] as string],
        swarm,
        timing: { requestTimeoutMs: 5_000, lookupTimeoutMs: 10_000, closestCacheMs: 0 },
        ...(seenFilterBytes === undefined ? {} : { limits: { seenFilterBytes } }),
      });
      await n.start();
      return n;
    };
    plain = await extra(0);
    filtered = await extra();
  }, 240_000);

  afterAll(async () => {
    await stopAll([...nodes, plain, filtered]);
  });

  it('returns the same answers for fewer bytes', async () => {
    const received = (n: CidxNode) => n.meter.total('in:query-response').bytes;
    const before = { plain: received(plain), filtered: received(filtered) };
    for (const p of profiles.slice(0, 12)) {
      const a = await plain.search(p, { k: 5 });
      const b = await filtered.search(p, { k: 5 });
      expect(b.map((r) => [r.id, r.similarity])).toEqual(a.map((r) => [r.id, r.similarity]));
      expect(a.length).toBe(5);
    }
    const plainBytes = received(plain) - before.plain;
    const filteredBytes = received(filtered) - before.filtered;
    expect(filteredBytes).toBeGreaterThan(0);
    expect(filteredBytes).toBeLessThan(0.8 * plainBytes);
  });
});
