import type { PeerId } from '@libp2p/interface';
import { beforeEach, describe, expect, it } from 'vitest';
import { resolveSwarm } from '../../src/index/swarm.ts';
import { communityAddressKey } from '../../src/keys/rehash.ts';
import { sortByDistance } from '../../src/net/closest.ts';
import { createContext } from '../../src/node/context.ts';
import { createCommunity } from '../../src/node/create.ts';
import { dissolveCommunity } from '../../src/node/dissolve.ts';
import { lookupCommunity } from '../../src/node/lookup.ts';
import { type Exchange, MemoryNetwork, type MemoryPeer } from '../../src/node/memory-network.ts';
import type { Network } from '../../src/node/network.ts';
import { updateCommunity } from '../../src/node/update.ts';
import { parseProfile } from '../../src/profile/parse.ts';

/**
 * A community's entry read from AddressesDHT (`lookupCommunity`) on ten simulated peers in
 * memory, each lookup finding the four closest: the closest replica answers in full, the
 * others with the versions they hold, and the newest version or a tombstone held by any
 * replica still wins.
 */
describe("a community's entry in AddressesDHT", () => {
  const swarm = resolveSwarm({ index: { mode: 'attribute' } });
  const now = () => 1_000_000;
  let net: MemoryNetwork;
  let log: Exchange[];
  let owner: MemoryPeer;
  let id: string;
  /** The community's replicas, closest first, and a peer that is none of them. */
  let replicas: MemoryPeer[];
  let asker: MemoryPeer;

  beforeEach(async () => {
    log = [];
    net = await MemoryNetwork.create(10, { swarm, now, onExchange: (e) => log.push(e) });
    owner = net.peers[0] as MemoryPeer;
    // A community whose replicas (and the next peer) do not include its owner, asked of by
    // another peer: the owner keeps what it stores itself whatever the faults of the network,
    // and remembers a replica that missed its update as silent.
    for (let attempt = 0; ; attempt++) {
      const p = parseProfile({ weights: { [`rust${attempt}`]: 3, wasm: 2, compilers: 1 } });
      id = (await createCommunity(net.context(owner), p, { notify: 0 })).id;
      const order = sortByDistance(
        net.peers.map((q) => q.id),
        communityAddressKey(id),
      ).map((q) => net.peer(q) as MemoryPeer);
      // Ask from the farthest peer but the owner: every replica is remote to it.
      asker = order.filter((q) => q !== owner).at(-1) as MemoryPeer;
      replicas = order.filter((q) => q !== asker).slice(0, 4);
      if (!replicas.includes(owner)) break;
    }
    log.length = 0;
  });

  const gets = () =>
    log.flatMap((e) =>
      e.req.t === 'contacts-get' && e.from.equals(asker.id)
        ? [{ to: e.to.toString(), brief: e.req.brief === true, res: e.res }]
        : [],
    );
  const name = (p: MemoryPeer) => p.id.toString();

  it('asks the closest replica in full and the others for the versions they hold', async () => {
    const entry = await lookupCommunity(net.context(asker), id);
    expect(entry.dissolved).toBe(false);
    expect(entry.descriptor?.version).toBe(1);
    expect(entry.contacts?.version).toBe(1);
    expect(gets()).toEqual([
      { to: name(replicas[0] as MemoryPeer), brief: false, res: expect.anything() },
      { to: name(replicas[1] as MemoryPeer), brief: true, res: expect.anything() },
      { to: name(replicas[2] as MemoryPeer), brief: true, res: expect.anything() },
    ]);
    const [full, ...brief] = gets();
    expect(full?.res.ok && full.res.rec !== undefined && full.res.desc !== undefined).toBe(true);
    for (const b of brief) {
      expect(b.res).toMatchObject({ ok: true, recV: 1, descV: 1 });
      expect(b.res.ok && (b.res.rec ?? b.res.desc)).toBeUndefined();
    }
  });

  it('fetches in full from a replica whose brief answer holds a newer version', async () => {
    // The closest replica misses the update: it still holds version 1, the next ones 2.
    (replicas[0] as MemoryPeer).faults.dead = true;
    await updateCommunity(net.context(owner), id, parseProfile({ weights: { rust: 1 } }));
    (replicas[0] as MemoryPeer).faults.dead = false;
    log.length = 0;
    const entry = await lookupCommunity(net.context(asker), id);
    expect(entry.descriptor?.version).toBe(2);
    expect(entry.contacts?.version).toBe(2);
    expect(entry.descriptor?.profile.has('wasm')).toBe(false);
    // One more request, in full, to one replica that holds version 2.
    const asked = gets();
    expect(asked).toHaveLength(4);
    expect(asked.filter((g) => !g.brief).map((g) => g.to)).toEqual([
      name(replicas[0] as MemoryPeer),
      name(replicas[1] as MemoryPeer),
    ]);
  });

  it('finds the community dissolved when only a replica asked briefly holds the tombstone', async () => {
    (replicas[0] as MemoryPeer).faults.dead = true;
    await dissolveCommunity(net.context(owner), id);
    (replicas[0] as MemoryPeer).faults.dead = false;
    log.length = 0;
    expect(await lookupCommunity(net.context(asker), id)).toEqual({ dissolved: true });
    expect(gets().filter((g) => !g.brief)).toHaveLength(1);
  });

  it('asks a replica in full when the closest one holds nothing', async () => {
    (replicas[0] as MemoryPeer).faults.lostContacts = true;
    const entry = await lookupCommunity(net.context(asker), id);
    expect(entry.descriptor?.version).toBe(1);
    expect(gets().filter((g) => !g.brief)).toHaveLength(2);
  });

  /**
   * The asker's lookup of the community's key hears of the third replica first and, once the
   * answer sent ahead to it is back, of the two closest; then it ends.
   */
  const hearing = (): Network => {
    const view = net.from(asker);
    const [r0, r1, r2] = replicas.map((r) => r.id) as [PeerId, PeerId, PeerId];
    return {
      ...view,
      self: view.self,
      closestPeers: async (dht, key, onHeard) => {
        onHeard?.([r2]);
        await new Promise((resolve) => setTimeout(resolve, 0));
        onHeard?.([r1, r0]);
        await new Promise((resolve) => setTimeout(resolve, 0));
        return view.closestPeers(dht, key);
      },
    };
  };

  it('reading ahead, asks in full until an answer holds the entry, and briefly after it', async () => {
    const ctx = createContext(hearing(), { swarm, key: asker.key, owned: asker.owned, now });
    const entry = await lookupCommunity(ctx, id);
    expect(entry.descriptor?.version).toBe(1);
    // The third replica, the closest heard of at first, was asked in full; the closest two,
    // heard of after its answer held the entry, for their versions — nothing after the lookup.
    expect(gets()).toEqual([
      { to: name(replicas[2] as MemoryPeer), brief: false, res: expect.anything() },
      { to: name(replicas[0] as MemoryPeer), brief: true, res: expect.anything() },
      { to: name(replicas[1] as MemoryPeer), brief: true, res: expect.anything() },
    ]);
  });

  it('reading ahead, a replica that holds a newer version than the answer in full is asked in full', async () => {
    (replicas[2] as MemoryPeer).faults.dead = true;
    await updateCommunity(net.context(owner), id, parseProfile({ weights: { rust: 1 } }));
    (replicas[2] as MemoryPeer).faults.dead = false;
    log.length = 0;
    const ctx = createContext(hearing(), { swarm, key: asker.key, owned: asker.owned, now });
    const entry = await lookupCommunity(ctx, id);
    expect(entry.descriptor?.version).toBe(2);
    expect(
      gets()
        .filter((g) => !g.brief)
        .map((g) => g.to),
    ).toEqual([name(replicas[2] as MemoryPeer), name(replicas[0] as MemoryPeer)]);
  });
});
