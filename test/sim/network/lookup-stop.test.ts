import { afterEach, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import { closestPeers, sortByDistance } from '../../../src/net/closest.ts';
import { routingTableSize } from '../../../src/net/kad-internals.ts';
import { type CidxLibp2p, createHost } from '../../../src/net/libp2p.ts';
import { waitFor } from '../../support/swarm.ts';
import { onNetwork } from './hosts.ts';

/**
 * A lookup gives up on a query that is overdue and ends with the peers that answered
 * (closest.ts, LookupStop), on real kad-dht instances over the network model. kad-dht's own
 * per-query timeout is set to ten minutes, longer than the test may take: a lookup that waited
 * for kad-dht to give up on the frozen peer would not end in time. Which peer is overdue is decided by the test (the frozen
 * one after 300 ms, the others never), so nothing depends on how fast the machine runs.
 */
describe('a lookup that meets a peer that stopped answering', () => {
  const hosts: CidxLibp2p[] = [];
  let net: SimNetwork | undefined;
  afterEach(async () => {
    net?.thaw(['p0', 'p1', 'p2', 'p3', 'p4', 'p5']);
    await Promise.all(hosts.splice(0).map((h) => h.stop()));
    net?.close();
    net = undefined;
  });

  it('passes over it when overdue and ends with the peers that answered', async () => {
    net = new SimNetwork({ seed: 9, latencyMs: 20 });
    for (let i = 0; i < 6; i++) {
      const h = await createHost({
        ...onNetwork(net, `p${i}`),
        simulation: true,
        dht: { networkDialTimeout: { minTimeout: 600_000, maxTimeout: 600_000 } },
      });
      await h.start();
      hosts.push(h);
    }
    const [a, ...others] = hosts as [CidxLibp2p, ...CidxLibp2p[]];
    for (const o of others) await a.dial(o.getMultiaddrs());
    await waitFor(
      () => routingTableSize(a.services.profiles) === others.length,
      60_000,
      'routing table',
    );
    const key = new TextEncoder().encode('a key');
    const order = sortByDistance(
      others.map((o) => o.peerId),
      key,
    );
    const frozenId = order[0];
    const frozenIndex = others.findIndex((o) => o.peerId.equals(frozenId));
    expect(frozenIndex).toBeGreaterThanOrEqual(0);
    net.freeze([`p${frozenIndex + 1}`]);
    const overdue: string[] = [];
    const answered: string[] = [];
    const found = await closestPeers(
      a.services.profiles,
      a.peerId,
      key,
      new AbortController().signal,
      undefined,
      undefined,
      {
        overdueMs: (p) => (p.equals(frozenId) ? 300 : 600_000),
        onOverdue: (p) => overdue.push(p.toString()),
        // What tells the node a peer it gave up on answers again (Network.unresponsive).
        onAnswer: (p) => answered.push(p.toString()),
      },
    );
    expect(overdue).toEqual([frozenId?.toString()]);
    expect(answered).not.toContain(frozenId?.toString());
    expect(answered).toContain(order[1]?.toString());
    const ids = found.map(String);
    expect(ids).not.toContain(frozenId?.toString());
    // The closest live peers are there, closest first, with the node itself (it serves).
    for (const p of order.slice(1, 4)) expect(ids).toContain(p.toString());
    expect(ids).toContain(a.peerId.toString());
  }, 120_000);
});
