import { randomBytes } from 'node:crypto';
import type { PeerId } from '@libp2p/interface';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveSwarm } from '../../src/index/swarm.ts';
import { attributeKey } from '../../src/keys/rehash.ts';
import { type Request, WIRE_VERSION } from '../../src/net/codec.ts';
import { profileToWire } from '../../src/net/wire-profile.ts';
import { createCommunity } from '../../src/node/create.ts';
import { NetworkError, SwarmMismatchError } from '../../src/node/errors.ts';
import { type AnswerSource, Holders } from '../../src/node/holders.ts';
import { type Exchange, MemoryNetwork, type MemoryPeer } from '../../src/node/memory-network.ts';
import type { Network } from '../../src/node/network.ts';
import { parseProfile } from '../../src/profile/parse.ts';

/**
 * The requester's policy for reaching the holders of a key (`Holders`), on simulated peers in
 * memory: which peers are asked, in which order, with which request.
 */
describe('asking the holders of a key', () => {
  const swarm = resolveSwarm({ index: { mode: 'attribute' } });
  const now = () => 1_000_000;
  let net: MemoryNetwork;
  let log: Exchange[];

  beforeEach(async () => {
    log = [];
    net = await MemoryNetwork.create(6, { swarm, now, onExchange: (e) => log.push(e) });
  });

  const holdersOf = (
    peer: MemoryPeer,
    network: Network = net.from(peer),
    cacheMs = 0,
    readsAhead = 3,
  ) =>
    new Holders(network, { closestCacheMs: cacheMs, now, swarmParams: swarm.params, readsAhead });
  const probe = (key: Uint8Array): Request => ({
    v: WIRE_VERSION,
    swarm: swarm.digest,
    t: 'probe',
    key,
  });
  /** A key, and an asker that is the farthest of all peers from it (the last candidate). */
  const farAsker = (key = new Uint8Array(randomBytes(32))) => {
    const order = net.closest(net.peers[0] as MemoryPeer, key);
    const far = order.at(-1) as PeerId;
    const asker = net.peer(far) as MemoryPeer;
    return { key, asker, candidates: net.closest(asker, key) };
  };
  const ids = (ps: { peer: PeerId }[] | PeerId[]) =>
    ps.map((p) => ('peer' in p ? p.peer : p).toString());

  it('asks the closest replicas and passes over a dead one to the next', async () => {
    const { key, asker, candidates } = farAsker();
    expect(candidates).toHaveLength(5);
    expect(candidates.at(-1)?.equals(asker.id)).toBe(true);
    const h = holdersOf(asker);
    expect(ids(await h.candidates('profiles', key))).toEqual(ids(candidates));
    (net.peer(candidates[1] as PeerId) as MemoryPeer).faults.dead = true;
    const asked = await h.ask('profiles', key, probe(key), { replicas: 3 });
    expect(ids(asked.sent)).toEqual(ids(candidates.slice(0, 4)));
    expect(ids(asked.answers)).toEqual(
      ids([candidates[0], candidates[2], candidates[3]] as PeerId[]),
    );
  });

  it('stops asking once the answers hold what the caller needs', async () => {
    const { key, asker, candidates } = farAsker();
    (net.peer(candidates[0] as PeerId) as MemoryPeer).faults.dead = true;
    const h = holdersOf(asker);
    const enough = await h.ask('profiles', key, probe(key), {
      replicas: 3,
      until: (a) => a.length > 0,
    });
    expect(enough.sent).toHaveLength(3);
    const all = await h.ask('profiles', key, probe(key), { replicas: 3 });
    // The dead peer, silent since the first ask, is asked after the others: three answer first.
    expect(ids(all.sent)).toEqual(ids(candidates.slice(1, 4) as PeerId[]));
    expect(all.answers).toHaveLength(3);
  });

  it('sends to the known holders too, unless they answered already', async () => {
    const { key, asker, candidates } = farAsker();
    const h = holdersOf(asker);
    const stray = net.peers.find((p) => !candidates.some((c) => c.equals(p.id))) as MemoryPeer;
    const asked = await h.ask('profiles', key, probe(key), {
      replicas: 2,
      // A remembered id that no longer parses is passed over.
      alsoAsk: [(candidates[0] as PeerId).toString(), 'not-a-peer-id', stray.id.toString()],
    });
    expect(ids(asked.sent)).toEqual(ids([candidates[0], candidates[1], stray.id] as PeerId[]));
    expect(ids(asked.answers)).toEqual(ids(asked.sent));
  });

  it('fails with NetworkError when nobody answers', async () => {
    const { key, asker } = farAsker();
    for (const p of net.peers) p.faults.dead = true;
    await expect(
      holdersOf(asker).ask('profiles', key, probe(key), { replicas: 3 }),
    ).rejects.toThrow(NetworkError);
  });

  it('refuses to pass its own answers off as the swarm’s when every other peer runs other parameters', async () => {
    const { key, asker, candidates } = farAsker();
    for (const p of net.peers) if (p !== asker) p.faults.otherSwarm = true;
    const h = holdersOf(asker);
    await expect(h.ask('profiles', key, probe(key), { replicas: 3 })).rejects.toThrow(
      SwarmMismatchError,
    );
    // The peers that said so are never asked again: only this node is left.
    expect(ids(await h.candidates('profiles', key))).toEqual([asker.id.toString()]);
    expect(candidates.length).toBeGreaterThan(1);
  });

  it('leaves out a peer marked foreign', async () => {
    const { key, asker, candidates } = farAsker();
    const h = holdersOf(asker);
    h.markForeign(candidates[0] as PeerId);
    expect(ids(await h.candidates('profiles', key))).toEqual(ids(candidates.slice(1)));
  });

  it('reuses a key’s closest peers while the cache holds them, and forgets them when one fails', async () => {
    const { key, asker, candidates } = farAsker();
    const view = net.from(asker);
    let lookups = 0;
    const counted: Network = {
      ...view,
      self: view.self,
      closestPeers: (dht, k) => {
        lookups++;
        return view.closestPeers(dht, k);
      },
    };
    const h = holdersOf(asker, counted, 30_000);
    await h.ask('profiles', key, probe(key), { replicas: 1 });
    await h.ask('profiles', key, probe(key), { replicas: 1 });
    expect(lookups).toBe(1);
    (net.peer(candidates[0] as PeerId) as MemoryPeer).faults.dead = true;
    await h.ask('profiles', key, probe(key), { replicas: 1 });
    await h.ask('profiles', key, probe(key), { replicas: 1 });
    expect(lookups).toBe(2);
    const uncached = holdersOf(asker, counted, 0);
    await uncached.candidates('profiles', key);
    await uncached.candidates('profiles', key);
    expect(lookups).toBe(4);
  });

  describe("a key's query (GetSimilarCommunities)", () => {
    const profile = parseProfile({ weights: { opera: 1, verdi: 0.8 } });
    const query = (key: Uint8Array) =>
      ({
        v: WIRE_VERSION,
        swarm: swarm.digest,
        t: 'query',
        key,
        profile: profileToWire(profile),
        k: 5,
        brief: true,
      }) as const;

    it('after an empty answer, probes the next replicas at once and queries the closest that holds something', async () => {
      const key = new Uint8Array(attributeKey('opera'));
      const owner = net.peers[0] as MemoryPeer;
      await createCommunity(net.context(owner), profile, { notify: 0 });
      const { asker, candidates } = farAsker(key);
      // The three closest hold the descriptor; the closest one answers as if it did not.
      const holders = candidates.slice(0, 3).map((c) => net.peer(c) as MemoryPeer);
      for (const p of holders) expect(p.table.stats().descriptors).toBeGreaterThan(0);
      (holders[0] as MemoryPeer).faults.empty = true;
      const asked = await holdersOf(asker).getSimilarCommunities(key, query(key), {
        replicas: 1,
        maxPeers: 3,
      });
      expect(asked.sent.map((s) => [s.peer.toString(), s.t])).toEqual([
        [candidates[0]?.toString(), 'query'],
        [candidates[1]?.toString(), 'probe'],
        [candidates[2]?.toString(), 'probe'],
        [candidates[1]?.toString(), 'query'],
      ]);
      // The third replica holds it too, but the second counted first: its answer is not used.
      expect(ids(asked.answers)).toEqual(ids([candidates[0], candidates[1]] as PeerId[]));
      const found = asked.answers.flatMap((a) => a.res.sums ?? []);
      expect(found).toHaveLength(1);
      expect(found[0]?.sim).toBe(0.9);
    });

    it('only probes replicas of a key nobody stored anything under, up to maxPeers', async () => {
      const { key, asker, candidates } = farAsker();
      const asked = await holdersOf(asker).getSimilarCommunities(key, query(key), {
        replicas: 1,
        maxPeers: 3,
      });
      expect(asked.sent.map((s) => [s.peer.toString(), s.t])).toEqual([
        [candidates[0]?.toString(), 'query'],
        [candidates[1]?.toString(), 'probe'],
        [candidates[2]?.toString(), 'probe'],
      ]);
      expect(asked.answers).toHaveLength(3);
    });

    /**
     * A stored community under `opera` (unless `stored` is false), and the query of a far
     * asker whose lookup hears of the third closest first, then of the closest, and then ends;
     * the answers reach the asker only once the lookup has ended when `answersAfterLookup`. The
     * peers sent it, by id and type.
     */
    const queryWhileHearing = async (
      readsAhead: number,
      stored = true,
      answersAfterLookup = false,
    ) => {
      const key = new Uint8Array(attributeKey('opera'));
      if (stored) {
        await createCommunity(net.context(net.peers[0] as MemoryPeer), profile, { notify: 0 });
      }
      const { asker, candidates } = farAsker(key);
      const [c0, c1, c2] = candidates as [PeerId, PeerId, PeerId];
      const view = net.from(asker);
      const lookupDone = Promise.withResolvers<void>();
      const lookup: Network = {
        ...view,
        self: view.self,
        closestPeers: async (dht, k, onHeard) => {
          onHeard?.([c2]);
          onHeard?.([c1, c0]);
          // The lookup's last round: the answers sent ahead come in meanwhile.
          await new Promise((resolve) => setTimeout(resolve, 0));
          const found = await view.closestPeers(dht, k);
          lookupDone.resolve();
          return found;
        },
        send: async (to, req) => {
          const res = view.send(to, req);
          if (answersAfterLookup) await lookupDone.promise;
          return res;
        },
      };
      log.length = 0;
      const holders = holdersOf(asker, lookup, 0, readsAhead);
      const asked = await holders.getSimilarCommunities(key, query(key), {
        replicas: 1,
        maxPeers: 3,
      });
      const sent = asked.sent.map((s) => [s.peer.toString(), s.t]);
      return { asked, sent, c0: c0.toString(), c1: c1.toString(), c2: c2.toString() };
    };

    it('sends the query ahead to the closest peers a lookup hears of, a probe to the next replicas, and uses only the answer of the closest it finds', async () => {
      const { asked, sent, c0, c1, c2 } = await queryWhileHearing(3);
      // Each closest-so-far was sent the query once, and the next replica heard of a probe (not
      // this node: its own answer costs no round trip), before the lookup ended; none after it.
      expect(sent).toEqual([
        [c2, 'query'],
        [c0, 'query'],
        [c1, 'probe'],
      ]);
      expect(log.filter((e) => e.req.t === 'query')).toHaveLength(2);
      // The answer used is the closest's alone, as without reading ahead, although the third
      // replica answered first with the same community.
      expect(ids(asked.answers)).toEqual([c0]);
      expect(asked.answers[0]?.res.sums).toHaveLength(1);
    });

    it('an empty key costs the lookup alone: the next replicas answered ahead', async () => {
      const { asked, sent, c0, c1, c2 } = await queryWhileHearing(3, false);
      // The closest's answer sent ahead is used (empty), then the next replicas' answers sent
      // ahead (a probe, and the third's query): nothing is sent after the lookup.
      expect(sent).toEqual([
        [c2, 'query'],
        [c0, 'query'],
        [c1, 'probe'],
      ]);
      expect(ids(asked.answers)).toEqual([c0, c1, c2]);
      expect(asked.answers.every((a) => (a.res.sums?.length ?? 0) === 0)).toBe(true);
    });

    it('answers sent ahead that arrive after the lookup are used as they come', async () => {
      const { asked, sent, c0 } = await queryWhileHearing(3, true, true);
      expect(sent).toHaveLength(3);
      expect(ids(asked.answers)).toEqual([c0]);
      expect(asked.answers[0]?.res.sums).toHaveLength(1);
    });

    it('with readsAhead 0, sends the query only after the lookup, to the closest it found', async () => {
      const { asked, sent, c0 } = await queryWhileHearing(0);
      expect(sent).toEqual([[c0, 'query']]);
      expect(ids(asked.answers)).toEqual([c0]);
    });

    it('reads ahead only for reads: a store goes to the closest peers after the lookup', async () => {
      const { key, asker, candidates } = farAsker();
      const view = net.from(asker);
      const lookup: Network = {
        ...view,
        self: view.self,
        closestPeers: async (dht, k, onHeard) => {
          onHeard?.([candidates[3] as PeerId]);
          return view.closestPeers(dht, k);
        },
      };
      const asked = await holdersOf(asker, lookup).ask('profiles', key, probe(key), {
        replicas: 2,
      });
      expect(ids(asked.sent)).toEqual(ids(candidates.slice(0, 2)));
    });

    it('asks a brief answer again in full once, however many of its claims need it', async () => {
      const key = new Uint8Array(attributeKey('opera'));
      const owner = net.peers[0] as MemoryPeer;
      await createCommunity(net.context(owner), profile, { notify: 0 });
      await createCommunity(net.context(owner), parseProfile({ weights: { opera: 2 } }), {
        notify: 0,
      });
      const { asker, candidates } = farAsker(key);
      const h = holdersOf(asker);
      const source: AnswerSource = { peer: candidates[0] as PeerId, req: query(key) };
      log.length = 0;
      const [a, b] = await Promise.all([h.askInFull(source), h.askInFull(source)]);
      expect(a).toHaveLength(2);
      expect(b).toBe(a);
      expect(log).toHaveLength(1);
      expect(log[0]?.req).toMatchObject({ t: 'query', k: 5 });
      expect('brief' in (log[0]?.req ?? {})).toBe(false);
      // A store answer has no full form to ask for.
      const store: AnswerSource = { peer: candidates[0] as PeerId, req: probe(key) };
      expect(await h.askInFull(store)).toEqual([]);
    });
  });
});
