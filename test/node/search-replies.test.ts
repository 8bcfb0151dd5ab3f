import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { indexKeys } from '../../src/keys/index-keys.ts';
import { IndexClient } from '../../src/net/client.ts';
import type { Response } from '../../src/net/codec.ts';
import { WIRE_VERSION } from '../../src/net/codec.ts';
import { QueryHandler } from '../../src/net/handlers/query.ts';
import { Meter } from '../../src/net/meter.ts';
import type { SearchStats } from '../../src/node/config.ts';
import { CidxNode } from '../../src/node/node.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import type { Profile } from '../../src/profile/profile.ts';
import { similarity } from '../../src/profile/similarity.ts';
import { hex } from '../../src/util/bytes.ts';
import { startSwarm, stopAll, variedProfiles } from '../support/swarm.ts';

/**
 * Brief answers on a real 12-node swarm: the queried nodes answer with (id, version, similarity)
 * summaries and the search fetches only the best candidates' descriptors, with their contacts.
 * What it returns must be what merging every key's full top k would give.
 */
describe('search answers on a 12-node swarm', () => {
  const swarm = { index: { mode: 'lsh' as const, n: 20, m: 1, seed: 'seen' } };
  let nodes: CidxNode[];
  let asker: CidxNode;
  const searchStats: SearchStats[] = [];
  // Two topics only: every community shares most keys with many others.
  const profiles = variedProfiles(24, 30, 7, 2);
  const ids: string[] = [];

  beforeAll(async () => {
    // Generous timeouts: a request timing out under a loaded machine would change an answer.
    nodes = await startSwarm(12, {
      swarm,
      timing: { requestTimeoutMs: 20_000, lookupTimeoutMs: 30_000 },
    });
    for (const [i, p] of profiles.entries())
      ids.push((await (nodes[i % nodes.length] as CidxNode).create(p)).id);
    asker = await CidxNode.create({
      transport: 'memory',
      listen: [`/memory/cidx-replies-${Date.now()}`],
      encryption: 'plaintext',
      bootstrap: [nodes[0]?.addrs[0] as string, nodes[5]?.addrs[0] as string],
      swarm,
      timing: { requestTimeoutMs: 20_000, lookupTimeoutMs: 30_000 },
      // Every key answers: the answer compared below is that of all keys, which a search that
      // ends on a quorum of them (test/node/search-quorum.test.ts) need not give.
      limits: { searchQuorum: 100 },
      onSearch: (st) => searchStats.push(st),
    });
    await asker.start();
  }, 240_000);

  afterAll(async () => {
    await stopAll([...nodes, asker]);
  });

  /**
   * The loss-free answer: every key's holders answer with their top k, the search merges and
   * keeps the best k — the best k of all communities that share a key with the query.
   */
  const merged = (query: Profile, k: number) => {
    const keys = new Set(indexKeys(query, swarm.index).map(hex));
    return profiles
      .map((p, i) => ({ id: ids[i] as string, profile: parseProfile(p) }))
      .filter((c) => indexKeys(c.profile, swarm.index).some((key) => keys.has(hex(key))))
      .map((c) => ({ id: c.id, similarity: similarity(query, c.profile) }))
      .filter((c) => c.similarity > 0)
      .sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))
      .slice(0, k);
  };

  it('returns the merged best k with contacts, and reports how its requests spread', async () => {
    const statsBefore = searchStats.length;
    for (const p of profiles.slice(0, 12)) {
      const got = await asker.search(p, { k: 5 });
      expect(got.map((r) => ({ id: r.id, similarity: r.similarity }))).toEqual(
        merged(parseProfile(p), 5),
      );
      for (const r of got) {
        expect(r.version).toBe(1);
        expect(r.contacts.length).toBeGreaterThan(0);
      }
    }
    // Every key asked, some nodes under several keys (20 keys on 12 nodes), never fewer
    // requests than nodes.
    const stats = searchStats.slice(statsBefore);
    expect(stats.length).toBe(12);
    for (const st of stats) {
      expect(st.keys).toBe(20);
      expect(st.requests).toBeGreaterThanOrEqual(st.peers);
      expect(st.peers).toBeLessThanOrEqual(16);
    }
    expect(stats.some((st) => st.repeatQueries > 0)).toBe(true);
  });

  it('a responder inflating a claim cannot rank a community higher', async () => {
    const query = profiles[0];
    const honest = await asker.search(query, { k: 5 });
    // Every responder claims that a community of the other topic (no attribute in common with
    // the query, so similarity 0) is a perfect match.
    const decoy = ids[1] as string;
    const handle = QueryHandler.prototype.handle;
    const spy = vi.spyOn(QueryHandler.prototype, 'handle').mockImplementation(async function (
      this: QueryHandler,
      from,
      req,
    ): Promise<Response> {
      const res = await handle.call(this, from, req);
      if (res.ok && res.sums !== undefined)
        res.sums.unshift({ id: Buffer.from(decoy, 'hex'), v: 1, sim: 1e6 });
      return res;
    });
    try {
      const hostile = await asker.search(query, { k: 5 });
      expect(spy).toHaveBeenCalled();
      expect(hostile.map((r) => [r.id, r.similarity])).toEqual(
        honest.map((r) => [r.id, r.similarity]),
      );
      expect(hostile.some((r) => r.id === decoy)).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it('a probe tells how many descriptors a node holds under a key, and nothing else', async () => {
    const client = new IndexClient(
      asker.libp2p,
      { timeoutMs: 5000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const probe = (key: Uint8Array) =>
      ({ v: WIRE_VERSION, swarm: asker.swarm.digest, t: 'probe', key }) as const;
    const key = indexKeys(parseProfile(profiles[0]), swarm.index)[0] as Uint8Array;
    const holder = nodes.find((n) => [...n.table.descriptors(hex(key), Date.now())].length > 0);
    expect(holder).toBeDefined();
    const held = [...(holder as CidxNode).table.descriptors(hex(key), Date.now())].length;
    const res = await client.request((holder as CidxNode).libp2p.peerId, probe(key));
    expect(res).toEqual({ v: WIRE_VERSION, ok: true, held });
    const none = await client.request(
      (holder as CidxNode).libp2p.peerId,
      probe(new Uint8Array(32).fill(7)),
    );
    expect(none.held).toBe(0);
  });
});
