import { randomBytes } from 'node:crypto';
import { generateKeyPair } from '@libp2p/crypto/keys';
import type { PeerId } from '@libp2p/interface';
import { peerIdFromPrivateKey } from '@libp2p/peer-id';
import { describe, expect, it } from 'vitest';
import { resolveSwarm } from '../../src/index/swarm.ts';
import { attributeKey } from '../../src/keys/rehash.ts';
import { distanceFrom, sortByDistance } from '../../src/net/closest.ts';
import { type OkResponse, type Request, WIRE_VERSION } from '../../src/net/codec.ts';
import { profileToWire } from '../../src/net/wire-profile.ts';
import { createCommunity } from '../../src/node/create.ts';
import { type Asked, Holders, type QueryRequest } from '../../src/node/holders.ts';
import { type Exchange, MemoryNetwork, type MemoryPeer } from '../../src/node/memory-network.ts';
import type { Network } from '../../src/node/network.ts';
import { readAhead } from '../../src/node/read-ahead.ts';
import { ClosestDistance } from '../../src/node/swarm-size.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { rng } from '../support/swarm.ts';

/** The distances of the three closest of `n` evenly spread ids to a random key. */
function lookupResult(n: number, next: () => number): number[] {
  // The XOR distance of a uniformly drawn id to any key is uniform in the id space.
  const d: number[] = [];
  for (let i = 0; i < n; i++) d.push(next());
  return d.sort((a, b) => a - b).slice(0, 3);
}

describe('how far a key’s closest peer is (ClosestDistance)', () => {
  it('estimates the swarm size from its lookups, within a quarter at 100 and 2000 nodes', () => {
    for (const n of [100, 2000]) {
      const next = rng(1);
      const est = new ClosestDistance();
      for (let i = 0; i < 64; i++) est.record(lookupResult(n, next));
      const size = est.swarmSize() as number;
      expect(size / n).toBeGreaterThan(0.75);
      expect(size / n).toBeLessThan(1.25);
    }
  });

  it('gives no estimate, and so no bound, before enough lookups', () => {
    const est = new ClosestDistance(64, 8);
    for (let i = 0; i < 7; i++) est.record([0.001, 0.002, 0.003]);
    expect(est.swarmSize()).toBeUndefined();
    expect(est.radius(1, 3)).toBeUndefined();
    est.record([0.001, 0.002, 0.003]);
    // Three peers within 0.003 of each key: a density of 1000.
    expect(est.swarmSize()).toBeCloseTo(1000, 6);
    // Three times the closest's expected distance, widened by twice the estimate's relative
    // error (1 / √24 after eight lookups of three ranks).
    expect(est.radius(1, 3)).toBeCloseTo(0.003 * (1 + 2 / Math.sqrt(24)), 9);
  });

  it('ignores lookups that found nothing, and forgets the oldest past its window', () => {
    const est = new ClosestDistance(8, 8);
    est.record([]);
    est.record([0, 0, 0]);
    for (let i = 0; i < 8; i++) est.record([0.1]);
    expect(est.swarmSize()).toBeCloseTo(10, 6);
    // A swarm that grew: after a window of new lookups only they count.
    for (let i = 0; i < 8; i++) est.record([0.0005, 0.001, 0.0015]);
    expect(est.swarmSize()).toBeCloseTo(2000, 6);
  });
});

describe('reads ahead near the key only', () => {
  const req: Request = {
    v: WIRE_VERSION,
    swarm: new Uint8Array(8),
    t: 'probe',
    key: new Uint8Array(32),
  };
  const ok: OkResponse = { v: WIRE_VERSION, ok: true };

  it('holds the request back from a closest-heard peer beyond the radius, and sends it to one within', async () => {
    const key = new Uint8Array(32).fill(7);
    const ids: PeerId[] = [];
    for (let i = 0; i < 12; i++) ids.push(peerIdFromPrivateKey(await generateKeyPair('Ed25519')));
    const [self, ...others] = sortByDistance(ids, key).reverse() as [PeerId, ...PeerId[]];
    // `self` is the farthest of all: never the closest heard of once another is.
    const byDistance = sortByDistance(others, key);
    const distance = distanceFrom(key);
    const near = byDistance[0] as PeerId;
    const far = byDistance.slice(1);
    // Between the closest and the next: only the closest is within.
    const radius = (distance(near) + distance(far[0] as PeerId)) / 2;
    const run = (r: number | undefined) => {
      const sent: string[] = [];
      const early = new Map<string, Promise<OkResponse>>();
      const onHeard = readAhead(
        { key, req, want: 1, radius: r },
        {
          self,
          readsAhead: 3,
          skip: () => false,
          send: async (p) => {
            sent.push(p.toString());
            return ok;
          },
        },
        early,
      );
      // The lookup hears of the far peers first, farthest first, then of the closest.
      for (const p of [...far].reverse()) onHeard([p]);
      onHeard([near]);
      return sent;
    };
    // Without a radius every new closest heard of is asked, up to the budget of three.
    expect(run(undefined)).toEqual(
      [far[far.length - 1], far[far.length - 2], far[far.length - 3]].map(String),
    );
    // With it, none of the far ones: the closest alone, when it is heard of.
    expect(run(radius)).toEqual([near.toString()]);
  });
});

describe('a node’s reads ahead, bounded by what its lookups learnt', () => {
  const swarm = resolveSwarm({ index: { mode: 'attribute' } });
  const now = () => 1_000_000;
  const profile = parseProfile({ weights: { opera: 1, verdi: 0.8 } });

  it('after lookups, a far peer heard first is not sent the query ahead; the closest still answers it', async () => {
    const log: Exchange[] = [];
    const net = await MemoryNetwork.create(40, { swarm, now, onExchange: (e) => log.push(e) });
    const key = new Uint8Array(attributeKey('opera'));
    await createCommunity(net.context(net.peers[0] as MemoryPeer), profile, { notify: 0 });
    // The asker is the farthest of all from the key; the first peer its lookup hears of is the
    // next farthest (closer than the asker, so the closest heard of), then the closest.
    const order = sortByDistance(
      net.peers.map((p) => p.id),
      key,
    );
    const asker = net.peer(order.at(-1) as PeerId) as MemoryPeer;
    const far = order.at(-2) as PeerId;
    const closest = order[0] as PeerId;
    const view = net.from(asker);
    const lookup: Network = {
      ...view,
      self: view.self,
      closestPeers: async (dht, k, onHeard) => {
        onHeard?.([far]);
        onHeard?.([closest]);
        return view.closestPeers(dht, k);
      },
    };
    const query: Request = {
      v: WIRE_VERSION,
      swarm: swarm.digest,
      t: 'query',
      key,
      profile: profileToWire(profile),
      k: 5,
      brief: true,
    };
    const run = async (aheadRadius: number, lookupsBefore: number) => {
      const holders = new Holders(lookup, {
        closestCacheMs: 0,
        now,
        swarmParams: swarm.params,
        readsAhead: 3,
        aheadRadius,
      });
      for (let i = 0; i < lookupsBefore; i++) {
        await holders.candidates('addresses', new Uint8Array(randomBytes(32)));
      }
      log.length = 0;
      const asked = await holders.getSimilarCommunities(key, query as QueryRequest, {
        replicas: 1,
        maxPeers: 3,
      });
      const queried = log.filter((e) => e.req.t === 'query').map((e) => e.to.toString());
      return { asked, queried, swarmSize: holders.swarmSize() };
    };
    const sums = (a: Asked) => a.answers.flatMap((x) => x.res.sums ?? []).length;

    const unbounded = await run(0, 8);
    expect(unbounded.queried).toContain(far.toString());
    // No lookup before the search's own: no estimate yet, so no bound.
    const cold = await run(1, 0);
    expect(cold.queried).toContain(far.toString());

    const bounded = await run(1, 8);
    // The eight lookups (each finds the four closest and the asker) tell a swarm of about 40.
    expect(bounded.swarmSize).toBeGreaterThan(10);
    expect(bounded.swarmSize).toBeLessThan(160);
    expect(bounded.queried).not.toContain(far.toString());
    expect(bounded.queried.filter((p) => p === closest.toString())).toHaveLength(1);
    // The same answer as without the bound.
    expect(bounded.asked.answers.map((a) => a.peer.toString())).toEqual([closest.toString()]);
    expect(sums(bounded.asked)).toBe(sums(unbounded.asked));
    expect(sums(bounded.asked)).toBe(1);
  });
});
