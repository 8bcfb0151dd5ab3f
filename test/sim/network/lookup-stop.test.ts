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
    net?.thaw(hosts.map((_, i) => `p${i}`));
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
        // The frozen peer is the closest heard of: the lookup cannot end as converged
        // without it, and waits until it is overdue.
        converged: 3,
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

  /**
   * Eight hosts whose routing tables hold each other (k = 20), so the lookup queries all seven
   * peers at once; the farthest from the key is frozen. Ended as converged, the lookup ends
   * once the two closest answered; without it, it waits for the frozen peer until it is
   * overdue. Nothing here is timed: the frozen peer never answers.
   */
  async function farPeerFrozen(stop: {
    converged?: number;
    overdueMs: number;
  }): Promise<{ found: string[]; overdue: string[]; order: string[] }> {
    net = new SimNetwork({ seed: 11, latencyMs: 20 });
    for (let i = 0; i < 8; i++) {
      const h = await createHost({
        ...onNetwork(net, `p${i}`),
        simulation: true,
        dht: {
          kBucketSize: 20,
          networkDialTimeout: { minTimeout: 600_000, maxTimeout: 600_000 },
        },
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
    const key = new TextEncoder().encode('another key');
    const order = sortByDistance(
      others.map((o) => o.peerId),
      key,
    );
    const far = order.at(-1);
    net.freeze([`p${others.findIndex((o) => o.peerId.equals(far)) + 1}`]);
    const overdue: string[] = [];
    const found = await closestPeers(
      a.services.profiles,
      a.peerId,
      key,
      new AbortController().signal,
      undefined,
      undefined,
      {
        overdueMs: (p) => (p.equals(far) ? stop.overdueMs : 600_000),
        onOverdue: (p) => overdue.push(p.toString()),
        ...(stop.converged === undefined ? {} : { converged: stop.converged }),
      },
    );
    return { found: found.map(String), overdue, order: order.map(String) };
  }

  it('ends once the closest peers heard of answered, without waiting for a farther one', async () => {
    const { found, overdue, order } = await farPeerFrozen({ converged: 2, overdueMs: 600_000 });
    expect(overdue).toEqual([]);
    expect(found).toContain(order[0]);
    expect(found).toContain(order[1]);
    expect(found).not.toContain(order.at(-1));
  }, 120_000);

  it('without that end, waits for the farther peer until it is overdue', async () => {
    const { found, overdue, order } = await farPeerFrozen({ overdueMs: 300 });
    expect(overdue).toEqual([order.at(-1)]);
    expect(found).toContain(order[0]);
    expect(found).not.toContain(order.at(-1));
  }, 120_000);
});
