import type { PeerId } from '@libp2p/interface';
import { afterEach, describe, expect, it } from 'vitest';
import { SimNetwork } from '../../../sim/network/network.ts';
import { closestPeers, sortByDistance } from '../../../src/net/closest.ts';
import { routingTableSize } from '../../../src/net/kad-internals.ts';
import { type CidxLibp2p, createHost } from '../../../src/net/libp2p.ts';
import { waitFor } from '../../support/swarm.ts';
import { onNetwork } from './hosts.ts';

/**
 * A lookup gives up on a query that is overdue and ends with the peers that answered, and ends
 * once its closest peers heard of have answered (closest.ts, LookupStop), on real kad-dht
 * instances over the network model. kad-dht's own per-query timeout is set to ten minutes,
 * longer than the test may take: a lookup that waited for kad-dht to give up on the frozen peer
 * would not end in time. Which peer is overdue is decided by the test (the frozen one after
 * 300 ms, or never; the others never), so nothing depends on how fast the machine runs.
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

  /**
   * `count` hosts on a new network model, the first connected to all others and holding them
   * in its routing table (kad-dht's k = `k`; the hosts' default if unset). The peer closest to
   * the key or the farthest is frozen, and the first host looks the key up, a query to the
   * frozen peer overdue after `frozenOverdueMs` and to the others after ten minutes.
   */
  async function lookupWithFrozen(o: {
    seed: number;
    count: number;
    k?: number;
    frozen: 'closest' | 'farthest';
    frozenOverdueMs: number;
    converged?: number;
    /** The caller drops the lookup once this many peers answered. */
    dropAfter?: number;
  }) {
    const model = new SimNetwork({ seed: o.seed, latencyMs: 20 });
    net = model;
    for (let i = 0; i < o.count; i++) {
      const h = await createHost({
        ...onNetwork(model, `p${i}`),
        simulation: true,
        dht: {
          ...(o.k === undefined ? {} : { kBucketSize: o.k }),
          networkDialTimeout: { minTimeout: 600_000, maxTimeout: 600_000 },
        },
      });
      await h.start();
      hosts.push(h);
    }
    const [a, ...others] = hosts as [CidxLibp2p, ...CidxLibp2p[]];
    for (const other of others) await a.dial(other.getMultiaddrs());
    await waitFor(
      () => routingTableSize(a.services.profiles) === others.length,
      60_000,
      'routing table',
    );
    const key = new TextEncoder().encode(`a key ${o.seed}`);
    const order = sortByDistance(
      others.map((h) => h.peerId),
      key,
    );
    const frozen = (o.frozen === 'closest' ? order[0] : order.at(-1)) as PeerId;
    model.freeze([`p${others.findIndex((h) => h.peerId.equals(frozen)) + 1}`]);
    const overdue: string[] = [];
    const answered: string[] = [];
    const drop = new AbortController();
    const found = await closestPeers(
      a.services.profiles,
      a.peerId,
      key,
      drop.signal,
      undefined,
      undefined,
      {
        overdueMs: (p) => (p.equals(frozen) ? o.frozenOverdueMs : 600_000),
        onOverdue: (p) => overdue.push(p.toString()),
        // What tells the node a peer it gave up on answers again (Network.unresponsive).
        onAnswer: (p) => {
          answered.push(p.toString());
          if (answered.length === o.dropAfter) drop.abort();
        },
        ...(o.converged === undefined ? {} : { converged: o.converged }),
      },
    );
    return {
      dropped: drop.signal.aborted,
      self: a.peerId.toString(),
      frozen: frozen.toString(),
      order: order.map(String),
      found: found.map(String),
      overdue,
      answered,
    };
  }

  it('passes over it when overdue and ends with the peers that answered', async () => {
    const r = await lookupWithFrozen({
      seed: 9,
      count: 6,
      frozen: 'closest',
      frozenOverdueMs: 300,
      // The frozen peer is the closest heard of: the lookup cannot end as converged without
      // it, and waits until it is overdue.
      converged: 3,
    });
    expect(r.overdue).toEqual([r.frozen]);
    expect(r.answered).not.toContain(r.frozen);
    expect(r.answered).toContain(r.order[1]);
    expect(r.found).not.toContain(r.frozen);
    // The closest live peers are there, with the node itself (it serves).
    for (const p of r.order.slice(1, 4)) expect(r.found).toContain(p);
    expect(r.found).toContain(r.self);
  }, 120_000);

  // Eight hosts whose routing tables hold each other (k = 20): the lookup queries all seven
  // peers at once, the farthest from the key frozen. Nothing here is timed: it never answers.
  const eightFarthestFrozen = { seed: 11, count: 8, k: 20, frozen: 'farthest' } as const;

  it('ends once the closest peers heard of answered, without waiting for a farther one', async () => {
    const r = await lookupWithFrozen({
      ...eightFarthestFrozen,
      frozenOverdueMs: 600_000,
      converged: 2,
    });
    expect(r.overdue).toEqual([]);
    expect(r.found).toContain(r.order[0]);
    expect(r.found).toContain(r.order[1]);
    expect(r.found).not.toContain(r.frozen);
  }, 120_000);

  it('without that end, waits for the farther peer until it is overdue', async () => {
    const r = await lookupWithFrozen({
      ...eightFarthestFrozen,
      frozenOverdueMs: 300,
    });
    expect(r.overdue).toEqual([r.frozen]);
    expect(r.found).toContain(r.order[0]);
    expect(r.found).not.toContain(r.frozen);
  }, 120_000);

  // What a search does to the keys it no longer waits for (limits.searchQuorum): the lookup
  // ends when its caller drops it, with a query to the frozen peer still pending.
  it('ends when its caller drops it, without waiting for a pending query', async () => {
    const r = await lookupWithFrozen({
      ...eightFarthestFrozen,
      frozenOverdueMs: 600_000,
      converged: 0,
      dropAfter: 2,
    });
    expect(r.dropped).toBe(true);
    expect(r.overdue).toEqual([]);
    expect(r.answered.length).toBeGreaterThanOrEqual(2);
    expect(r.found).not.toContain(r.frozen);
  }, 120_000);
});
