import type { PeerId } from '@libp2p/interface';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveSwarm } from '../../src/index/swarm.ts';
import { indexKeys } from '../../src/keys/index-keys.ts';
import type { SearchStats } from '../../src/node/config.ts';
import { createContext } from '../../src/node/context.ts';
import { createCommunity } from '../../src/node/create.ts';
import { MemoryNetwork, type MemoryPeer } from '../../src/node/memory-network.ts';
import type { Network } from '../../src/node/network.ts';
import { keysWanted, searchCommunities } from '../../src/node/search.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { variedProfiles } from '../support/swarm.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
/** Lets every promise and callback queued so far run (no clock involved). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

describe('keysWanted', () => {
  it('takes a share of an LSH index’s keys, rounded up, at least one; every attribute key', () => {
    expect(keysWanted(20, 'lsh', 100)).toBe(20);
    expect(keysWanted(20, 'lsh', 90)).toBe(18);
    expect(keysWanted(20, 'lsh', 76)).toBe(16);
    expect(keysWanted(3, 'lsh', 1)).toBe(1);
    expect(keysWanted(0, 'lsh', 50)).toBe(0);
    expect(keysWanted(40, 'attribute', 50)).toBe(40);
  });
});

/**
 * A search that ends on a quorum of its keys (limits.searchQuorum): on simulated peers in
 * memory, the lookups of two of the query's keys held until the test lets them go or the search
 * drops them. Which keys hang is the test's choice: nothing here depends on timing.
 */
describe('a search that ends on a quorum of its keys', () => {
  const now = () => 1_000_000;
  const profiles = variedProfiles(12, 30, 5, 3).map((p) => parseProfile(p));
  let stats: SearchStats[];

  /** The asker's network, with the lookups of `slow` keys held (see the describe's comment). */
  function holding(base: Network, slow: Set<string>, failing = new Set<string>()) {
    const held: { key: string; aborted: boolean; release: () => void }[] = [];
    let fastDone = 0;
    const net: Network = {
      ...base,
      self: base.self,
      addrs: () => base.addrs(),
      ownAddrs: () => base.ownAddrs(),
      send: (p, r) => base.send(p, r),
      sendToAddr: (a, r) => base.sendToAddr(a, r),
      closestPeers: async (dht, key, onHeard, signal) => {
        if (dht === 'profiles' && failing.has(hex(key))) throw new Error('no route to the key');
        const found = await base.closestPeers(dht, key, onHeard, signal);
        if (dht !== 'profiles' || !slow.has(hex(key))) {
          fastDone++;
          return found;
        }
        return new Promise<PeerId[]>((resolve) => {
          let released = false;
          const entry = {
            key: hex(key),
            aborted: false,
            release: () => {
              released = true;
              resolve(found);
            },
          };
          held.push(entry);
          signal?.addEventListener('abort', () => {
            if (released) return;
            entry.aborted = true;
            resolve(found);
          });
        });
      },
    };
    return { net, held, fastDone: () => fastDone };
  }

  async function swarmWith(mode: 'lsh' | 'attribute') {
    const swarm = resolveSwarm({
      index: mode === 'lsh' ? { mode: 'lsh', n: 20, m: 1, seed: 'quorum' } : { mode },
    });
    const net = await MemoryNetwork.create(8, { swarm, now });
    const ids: string[] = [];
    for (const [i, profile] of profiles.entries()) {
      const r = await createCommunity(net.context(net.peers[i % 7] as MemoryPeer), profile, {
        notify: 0,
      });
      ids.push(r.id);
    }
    return { swarm, net, ids, asker: net.peers[7] as MemoryPeer };
  }

  function searchOn(
    s: Awaited<ReturnType<typeof swarmWith>>,
    query: Profile,
    slowCount: number,
    searchQuorum: number,
    failCount = 0,
  ) {
    const keys = indexKeys(query, s.swarm.params.index);
    const slow = new Set(keys.slice(0, slowCount).map(hex));
    const failing = new Set(keys.slice(slowCount, slowCount + failCount).map(hex));
    const h = holding(s.net.from(s.asker), slow, failing);
    const ctx = createContext(h.net, {
      swarm: s.swarm,
      key: s.asker.key,
      owned: s.asker.owned,
      now,
      limits: { searchQuorum },
      onSearch: (st) => stats.push(st),
    });
    let settled = false;
    const done = searchCommunities(ctx, query, 5).finally(() => {
      settled = true;
    });
    return { done, keys, h, held: slowCount, settled: () => settled };
  }

  /**
   * Once `answering` keys answered and the held ones are waiting, the search has not ended; the
   * test then lets the held go, and the search ends with the community queried first and no
   * key dropped.
   */
  async function waitsForTheHeld(
    s: Awaited<ReturnType<typeof swarmWith>>,
    run: ReturnType<typeof searchOn>,
    answering: number,
  ) {
    await vi.waitFor(() => expect(run.h.fastDone()).toBeGreaterThanOrEqual(answering));
    await vi.waitFor(() => expect(run.h.held).toHaveLength(run.held));
    await settle();
    expect(run.settled()).toBe(false);
    for (const x of run.h.held) x.release();
    const got = await run.done;
    expect(got[0]?.id).toBe(s.ids[3]);
    expect(run.h.held.map((x) => x.aborted)).toEqual(run.h.held.map(() => false));
    expect(stats.map((x) => x.keysDropped)).toEqual([0]);
  }

  beforeEach(() => {
    stats = [];
  });

  it('drops the keys still asked once the quorum answered: their lookups end', async () => {
    const s = await swarmWith('lsh');
    const query = profiles[3] as Profile;
    const run = searchOn(s, query, 2, 90);
    const got = await run.done;
    // The query is a community's own profile: every band meets it, the 18 answered too.
    expect(got[0]?.id).toBe(s.ids[3]);
    expect(got[0]?.similarity).toBeCloseTo(1);
    expect(run.h.held.map((x) => x.aborted)).toEqual([true, true]);
    expect(stats.map((x) => [x.keys, x.keysDropped])).toEqual([[20, 2]]);
  });

  it('with every key wanted, waits for the slowest', async () => {
    const s = await swarmWith('lsh');
    const query = profiles[3] as Profile;
    await waitsForTheHeld(s, searchOn(s, query, 2, 100), 18);
  });

  it('does not count failed keys: with too few answered, it waits for the slowest', async () => {
    const s = await swarmWith('lsh');
    const query = profiles[3] as Profile;
    // 20 keys, 3 failing, 2 held: 15 answer, fewer than the 18 the quorum wants.
    await waitsForTheHeld(s, searchOn(s, query, 2, 90, 3), 15);
  });

  it('a search of the attribute index asks every key whatever the quorum', async () => {
    const s = await swarmWith('attribute');
    const query = profiles[3] as Profile;
    const run = searchOn(s, query, 1, 10);
    await waitsForTheHeld(s, run, run.keys.length - 1);
  });
});
