import type { PeerId } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveSwarm } from '../../src/index/swarm.ts';
import { indexKeys } from '../../src/keys/index-keys.ts';
import { blobToWire, WIRE_VERSION } from '../../src/net/codec.ts';
import { profileToWire } from '../../src/net/wire-profile.ts';
import {
  addClaim,
  type Claim,
  type FetchedAhead,
  fetchAhead,
  verifyBest,
} from '../../src/node/claims.ts';
import type { SearchStats } from '../../src/node/config.ts';
import { createCommunity } from '../../src/node/create.ts';
import { dissolveCommunity } from '../../src/node/dissolve.ts';
import type { AnswerSource } from '../../src/node/holders.ts';
import { ReturnedDescriptors } from '../../src/node/lookup.ts';
import { type Exchange, MemoryNetwork, type MemoryPeer } from '../../src/node/memory-network.ts';
import { searchCommunities, searchStats } from '../../src/node/search.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { similarity } from '../../src/profile/similarity.ts';
import { descriptor, owner } from '../support/records.ts';
import { variedProfiles } from '../support/swarm.ts';

/**
 * The search of thesis algorithm 4.6 (query every key, merge, verify, re-rank, fetch contacts)
 * on six simulated peers in memory, with the per-attribute index: its answer must be the exact
 * best k, whatever the peers do wrong that the protocol is meant to survive.
 */
describe('a search on simulated peers', () => {
  const swarm = resolveSwarm({ index: { mode: 'attribute' } });
  const now = () => 1_000_000;
  // Three topics: a query shares attributes with its own topic and a few common words.
  const profiles = variedProfiles(15, 12, 3, 3).map((p) => parseProfile(p));
  let net: MemoryNetwork;
  let log: Exchange[];
  let communities: { id: string; profile: Profile; owner: MemoryPeer }[];
  let asker: MemoryPeer;
  let stats: SearchStats[];

  beforeEach(async () => {
    log = [];
    stats = [];
    net = await MemoryNetwork.create(6, { swarm, now, onExchange: (e) => log.push(e) });
    communities = [];
    for (const [i, profile] of profiles.entries()) {
      const o = net.peers[i % 5] as MemoryPeer;
      const r = await createCommunity(net.context(o), profile, { notify: 0 });
      communities.push({ id: r.id, profile, owner: o });
    }
    asker = net.peers[5] as MemoryPeer;
    log.length = 0;
  });

  const search = (query: Profile, k = 5) =>
    searchCommunities(net.context(asker, { onSearch: (s) => stats.push(s) }), query, k);
  /** The exact best k: every live community, ranked here. */
  const exact = (query: Profile, k = 5, gone: string[] = []) =>
    communities
      .filter((c) => !gone.includes(c.id))
      .map((c) => ({ id: c.id, similarity: similarity(query, c.profile) }))
      .filter((c) => c.similarity > 0)
      .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
      .slice(0, k);
  const brief = (rs: { id: string; similarity: number }[]) =>
    rs.map((r) => ({ id: r.id, similarity: r.similarity }));
  const ownerAddr = (id: string) => communities.find((c) => c.id === id)?.owner.addr;

  it('merges every key’s answers and re-ranks them: the exact best k, with contacts', async () => {
    for (const query of profiles.slice(0, 6)) {
      log.length = 0;
      const got = await search(query);
      expect(brief(got)).toEqual(exact(query));
      for (const r of got) expect(r.contacts).toEqual([ownerAddr(r.id)]);
      // Honest claims: the results' descriptors were fetched, and beyond them only communities
      // some answer claimed, fetched ahead while they were among the best claims so far —
      // within the budget of 4k.
      const fetched = new Set(log.flatMap((e) => (e.req.t === 'contacts-get' ? [e.req.id] : [])));
      const claimed = new Set(
        log.flatMap((e) =>
          e.req.t === 'query' && e.res.ok
            ? (e.res.sums ?? []).map((x) => Buffer.from(x.id).toString('hex'))
            : [],
        ),
      );
      for (const r of got) expect(fetched.has(r.id)).toBe(true);
      for (const id of fetched) expect(claimed.has(id)).toBe(true);
      expect(fetched.size).toBeLessThanOrEqual(4 * 5);
    }
    expect(stats).toHaveLength(6);
    expect(stats[0]?.keys).toBe(12);
    expect(stats[0]?.requests).toBeGreaterThanOrEqual(stats[0]?.peers as number);
  });

  it('fetches ahead the entries of the k best claims so far, each once, within 4k', async () => {
    const ctx = net.context(asker);
    const claims = new Map<string, Claim>();
    const ahead: FetchedAhead = new Map();
    const source: AnswerSource = {
      peer: asker.id,
      req: { v: 1, swarm: swarm.digest, t: 'probe', key: new Uint8Array(32) },
    };
    const claim = (c: { id: string }, sim: number) =>
      addClaim(claims, { id: Buffer.from(c.id, 'hex'), v: 1, sim }, source);
    communities.slice(0, 3).forEach((c, i) => {
      claim(c, 0.1 * (i + 1));
    });
    fetchAhead(ctx, claims, 2, ahead);
    // The two best claims so far: the third and the second community.
    expect([...ahead.keys()]).toEqual([communities[2]?.id, communities[1]?.id]);
    // A better claim arrives: it is fetched too; those fetched already are not fetched again.
    claim(communities[3] as { id: string }, 0.9);
    fetchAhead(ctx, claims, 2, ahead);
    expect([...ahead.keys()]).toEqual([communities[2]?.id, communities[1]?.id, communities[3]?.id]);
    // Ever better claims, one after another: each is fetched, until the budget of 4k is spent.
    communities.slice(4).forEach((c, i) => {
      claim(c, 1 + i);
      fetchAhead(ctx, claims, 2, ahead);
    });
    expect(ahead.size).toBe(8);
    const entries = await Promise.all(ahead.values());
    expect(entries.every((e) => e?.descriptor !== undefined)).toBe(true);
    expect(log.filter((e) => e.req.t === 'contacts-get').length).toBeGreaterThanOrEqual(8);
  });

  it('a responder claiming a false similarity changes nothing', async () => {
    const query = profiles[0] as Profile;
    const honest = await search(query);
    // A community of another topic, with no attribute of the query, claimed a perfect match;
    // and the honest sixth claimed above the first.
    const decoy = communities.find((c) => similarity(query, c.profile) === 0) as { id: string };
    const sixth = exact(query, 6)[5] as { id: string };
    for (const [i, p] of net.peers.entries())
      p.faults.lie = { id: i % 2 === 0 ? decoy.id : sixth.id, version: 1, sim: 1e6 };
    const hostile = await search(query);
    expect(brief(hostile)).toEqual(brief(honest));
    expect(hostile.some((r) => r.id === decoy.id)).toBe(false);
  });

  it('after an empty answer, probes the next replica and finds what it holds', async () => {
    const query = profiles[1] as Profile;
    // The two peers closest to one of its keys (the asker not first) answer as if they held
    // nothing: that key's third replica holds it, and the other keys keep one too.
    const key = indexKeys(query, swarm.params.index).find(
      (k) => !(net.closest(asker, k)[0] as PeerId).equals(asker.id),
    );
    if (key === undefined) throw new Error('the asker is closest to every key');
    const empty = net
      .closest(asker, key)
      .filter((p) => !p.equals(asker.id))
      .slice(0, 2);
    for (const id of empty) (net.peer(id) as MemoryPeer).faults.empty = true;
    const got = await search(query);
    expect(brief(got)).toEqual(exact(query));
    const probes = log.filter((e) => e.req.t === 'probe');
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.some((e) => (e.res.ok && e.res.held) || 0)).toBe(true);
  });

  it('passes over dead replicas', async () => {
    const query = profiles[2] as Profile;
    for (const p of net.peers.slice(3, 5)) p.faults.dead = true;
    const got = await search(query);
    expect(brief(got)).toEqual(exact(query));
    for (const r of got) expect(r.contacts).toEqual([ownerAddr(r.id)]);
  });

  it('asks a replica that failed after the others, and no longer waits for it', async () => {
    const query = profiles[2] as Profile;
    // The closest replica of one of the query's keys (the identities are random: a fixed peer
    // may be asked for none of them).
    const key = indexKeys(query, swarm.params.index).find(
      (k) => !(net.closest(asker, k)[0] as PeerId).equals(asker.id),
    );
    if (key === undefined) throw new Error('the asker is closest to every key');
    const gone = net.peer(net.closest(asker, key)[0] as PeerId) as MemoryPeer;
    gone.faults.dead = true;
    expect(brief(await search(query))).toEqual(exact(query));
    expect(net.from(asker).unresponsive?.(gone.id)).toBe(true);
    // Stopped now rather than gone: asked first, as the closest replica of some of the keys,
    // it would hold the search for ever (nothing times out here).
    gone.faults.dead = false;
    gone.faults.frozen = true;
    expect(brief(await search(query))).toEqual(exact(query));
  });

  it('takes the probes’ answers as they come: a stopped replica holds no key up', async () => {
    // A key whose three replicas are others than the asker: the closest answers as if it held
    // nothing, the next one is stopped (never known to fail), the third holds the key.
    const ctx = net.context(asker);
    const key = communities
      .flatMap((c) => indexKeys(c.profile, swarm.params.index))
      .find(
        (k) =>
          !net
            .closest(asker, k)
            .slice(0, 3)
            .some((p) => p.equals(asker.id)),
      );
    if (key === undefined) throw new Error('no key held by three other peers');
    const [first, second, third] = net
      .closest(asker, key)
      .slice(0, 3)
      .map((id) => net.peer(id) as MemoryPeer);
    (first as MemoryPeer).faults.empty = true;
    (second as MemoryPeer).faults.frozen = true;
    const query = {
      v: WIRE_VERSION,
      swarm: swarm.digest,
      t: 'query',
      key,
      profile: profileToWire(profiles[0] as Profile),
      k: 5,
      brief: true,
    } as const;
    const asked = await ctx.holders.getSimilarCommunities(key, query, { replicas: 1, maxPeers: 3 });
    const queried = asked.answers.filter((a) => (a.res.sums?.length ?? 0) > 0);
    expect(queried.map((a) => a.peer.toString())).toEqual([third?.id.toString()]);
  });

  it('leaves out a dissolved candidate', async () => {
    const query = profiles[3] as Profile;
    const first = exact(query)[0] as { id: string };
    const c = communities.find((x) => x.id === first.id) as { owner: MemoryPeer };
    await dissolveCommunity(net.context(c.owner), first.id);
    const got = await search(query);
    expect(brief(got)).toEqual(exact(query, 5, [first.id]));
  });

  it('asks the claiming peer in full when a candidate’s contacts are lost, once per answer', async () => {
    const query = profiles[4] as Profile;
    for (const p of net.peers) p.faults.lostContacts = true;
    const got = await search(query);
    expect(brief(got)).toEqual(exact(query));
    for (const r of got) expect(r.contacts).toEqual([]);
    const full = log.filter((e) => e.req.t === 'query' && e.req.brief !== true);
    expect(full.length).toBeGreaterThan(0);
    const asked = full.map(
      (e) => `${e.to.toString()}:${e.req.t === 'query' && Buffer.from(e.req.key).toString('hex')}`,
    );
    expect(new Set(asked).size).toBe(asked.length);
  });
});

describe('verifyBest', () => {
  const swarm = resolveSwarm({ index: { mode: 'attribute' } });
  const now = () => 1_000_000;

  it('fetches only as far as the claims could still beat the k-th, and scores here', async () => {
    const log: Exchange[] = [];
    const net = await MemoryNetwork.create(3, { swarm, now, onExchange: (e) => log.push(e) });
    const peer = net.peers[0] as MemoryPeer;
    const ctx = net.context(peer);
    const query = parseProfile({ weights: { a: 1, b: 1, c: 1, d: 1 } });
    const made: { id: string; sim: number }[] = [];
    for (const w of [{ a: 1 }, { a: 1, b: 1 }, { a: 1, b: 1, c: 1 }, { d: 0.5 }, { z: 1 }]) {
      const p = parseProfile({ weights: w });
      const r = await createCommunity(ctx, p, { notify: 0 });
      made.push({ id: r.id, sim: similarity(query, p) });
    }
    const source: AnswerSource = { peer: peer.id, req: { v: 1, swarm: swarm.digest, t: 'params' } };
    const claims = new Map<string, Claim>();
    for (const m of made)
      addClaim(claims, { id: Buffer.from(m.id, 'hex'), v: 1, sim: m.sim }, source);
    const fetched = () =>
      new Set(log.flatMap((e) => (e.req.t === 'contacts-get' ? [e.req.id] : []))).size;
    log.length = 0;
    const best = await verifyBest(ctx, query, claims, { k: 2 });
    expect(best.map((r) => r.id)).toEqual([made[2]?.id, made[1]?.id]);
    expect(best.map((r) => r.similarity)).toEqual([0.75, 0.5]);
    expect(fetched()).toBe(2);
    // An inflated claim costs one more fetch and ranks by what the descriptor is worth.
    addClaim(claims, { id: Buffer.from(made[4]?.id as string, 'hex'), v: 1, sim: 9 }, source);
    log.length = 0;
    const again = await verifyBest(ctx, query, claims, { k: 2, excludeId: made[2]?.id });
    expect(again.map((r) => r.id)).toEqual([made[1]?.id, made[0]?.id]);
    expect(fetched()).toBe(3);
  });
});

describe('ReturnedDescriptors', () => {
  it('keeps the newest verified version of each community and ranks by its own similarity', async () => {
    const a = await owner();
    const b = await owner();
    const c = await owner();
    const a1 = await descriptor(a, 1, { x: 1 });
    const a2 = await descriptor(a, 2, { x: 1, y: 1 });
    const b1 = await descriptor(b, 1, { y: 1 });
    const c1 = await descriptor(c, 1, { z: 1 });
    const forged = { ...blobToWire(b1.blob), p: blobToWire(a2.blob).p };
    const got = new ReturnedDescriptors({ profileLimits: {}, excludeId: c.id });
    await got.add([a2, a1, b1, c1].map((d) => blobToWire(d.blob)));
    await got.add([blobToWire(a1.blob), forged]);
    expect(got.get(a.id)?.version).toBe(2);
    expect(got.get(b.id)?.version).toBe(1);
    expect(got.get(c.id)).toBeUndefined();
    const ranked = got.rank(parseProfile({ weights: { x: 2, y: 1 } }));
    expect(ranked.map((r) => [r.record.id, r.similarity])).toEqual([
      [a.id, 1],
      [b.id, 0.5],
    ]);
    // A profile sharing nothing ranks nothing.
    expect(got.rank(parseProfile({ weights: { q: 1 } }))).toEqual([]);
  });
});

describe('searchStats', () => {
  it('counts requests to other nodes, the nodes, and queries to a node asked before', () => {
    const self = peerIdFromString('12D3KooWRBy97UB99e3J6hiPesre1MZeuNQvfan4gBziswrRJsNK');
    const p = peerIdFromString('12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo');
    const q = peerIdFromString('12D3KooWJWoaqZhDaoEFshF7Rh1bpY9ohihFhzcW6d69Lr2NASuq');
    const s = searchStats(self, 3, [
      { peer: self, t: 'query', seq: 0 },
      { peer: p, t: 'probe', seq: 3 },
      { peer: q, t: 'query', seq: 2 },
      { peer: p, t: 'query', seq: 1 },
      { peer: q, t: 'query', seq: 4 },
    ]);
    expect(s).toEqual({ keys: 3, requests: 4, peers: 2, repeatQueries: 1 });
  });
});
