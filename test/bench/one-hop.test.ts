import { createHash } from 'node:crypto';
import { generateKeyPairFromSeed } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { beforeAll, describe, expect, it } from 'vitest';
import { type OneHopNode, oneHop } from '../../bench/one-hop.ts';
import { sortByDistance } from '../../src/net/closest.ts';

const N = 12;
const REPLICAS = 3;
const PAIRS = 200;
let ids: PeerId[];

/** The same keys and searchers on every call: a counter hashed, and a seeded generator. */
function seeded() {
  let k = 0;
  let r = 1;
  return {
    key: () => createHash('sha256').update(`key-${k++}`).digest(),
    random: () => {
      r = (r * 48271) % 2147483647;
      return r / 2147483647;
    },
  };
}

/** The census of `nodes` over the seeded keys and searchers. */
function census(nodes: OneHopNode[], rttMs?: (a: number, b: number) => number) {
  const s = seeded();
  return oneHop(nodes, REPLICAS, PAIRS, s.random, s.key, rttMs);
}

function graph(edges: (a: number, b: number) => boolean): OneHopNode[] {
  return ids.map((id, a) => ({
    id,
    connected: new Set(ids.filter((_, b) => a !== b && edges(a, b)).map((p) => p.toString())),
  }));
}

beforeAll(async () => {
  // Seeded ids: where the hub sits among the keys decides how many walks go through it, so
  // random ids made the star's census differ from run to run.
  const seed = (i: number) => createHash('sha256').update(`peer-${i}`).digest();
  ids = await Promise.all(
    Array.from({ length: N }, async (_, i) =>
      peerIdFromPrivateKey(await generateKeyPairFromSeed('Ed25519', seed(i))),
    ),
  );
});

describe('oneHop', () => {
  it('reaches every key directly when every node is connected to every other', () => {
    const r = census(graph(() => true));
    expect(r).toMatchObject({ pairs: PAIRS, connections: N - 1, direct: 1, viaClosest: 1 });
    expect(r.closestConnectedRank).toBe(0);
    expect(r.withinHops).toEqual([1, 1, 1, 1]);
    expect(r.walkMs).toBeUndefined();
    const timed = census(
      graph(() => true),
      () => 100,
    );
    // Every walk is one hop, straight to a replica.
    expect(timed.walkMs).toEqual({ p50: 100, p90: 100 });
  });

  it("sums the round trips along a walk that goes through the star's hub", () => {
    const star = graph((a, b) => a === 0 || b === 0);
    // From the hub 10 ms to anyone; between leaves (never used: they are not connected) 1000.
    const r = census(star, (a, b) => (a === 0 || b === 0 ? 10 : 1000));
    // Reached in one hop (10 ms) or through the hub (20 ms); most reached walks take two.
    expect(r.walkMs?.p90).toBe(20);
    expect([10, 20]).toContain(r.walkMs?.p50);
  });

  it('reaches nothing when no node holds a connection', () => {
    const r = census(graph(() => false));
    expect(r).toMatchObject({ pairs: PAIRS, connections: 0, direct: 0, viaClosest: 0, either: 0 });
    expect(r.withinHops).toEqual([0, 0, 0, 0]);
  });

  it('counts a leaf of a star as direct only when the hub is a replica; its walk goes on through the hub only when that is closer', () => {
    // Node 0 is connected to all, the others only to it.
    const star = graph((a, b) => a === 0 || b === 0);
    const r = census(star);
    // The same keys and searchers, counted here the plain way.
    const t = seeded();
    let pairs = 0;
    let hubReplica = 0;
    let leafPairs = 0;
    let hubCloser = 0;
    while (pairs < PAIRS) {
      const key = t.key();
      const order = sortByDistance(ids, key).map((p) => p.toString());
      const replicas = order.slice(0, REPLICAS);
      const searcher = Math.floor(t.random() * N);
      if (replicas.includes(ids[searcher]?.toString() as string)) continue;
      pairs++;
      if (searcher === 0) continue; // the hub is connected to every replica
      leafPairs++;
      const hub = order.indexOf(ids[0]?.toString() as string);
      if (hub < REPLICAS) hubReplica++;
      // The walk goes on through the hub only if it is closer to the key than the leaf.
      else if (hub < order.indexOf(ids[searcher]?.toString() as string)) hubCloser++;
    }
    expect(r.pairs).toBe(PAIRS);
    expect(r.viaClosest).toBe(1);
    expect(r.direct).toBeCloseTo((PAIRS - leafPairs + hubReplica) / PAIRS, 10);
    expect(r.direct).toBeLessThan(1);
    const twoHops = (PAIRS - leafPairs + hubReplica + hubCloser) / PAIRS;
    expect(r.withinHops[0]).toBeCloseTo(r.direct, 10);
    expect(r.withinHops[1]).toBeCloseTo(twoHops, 10);
    expect(r.withinHops[3]).toBeCloseTo(twoHops, 10);
    expect(twoHops).toBeLessThan(1);
  });
});
