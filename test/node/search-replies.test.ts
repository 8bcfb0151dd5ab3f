import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hex } from '../../src/index/index-table.ts';
import { indexKeys } from '../../src/keys/index-keys.ts';
import { IndexClient } from '../../src/net/client.ts';
import type { Response } from '../../src/net/codec.ts';
import { WIRE_VERSION } from '../../src/net/codec.ts';
import { QueryHandler } from '../../src/net/handlers/query.ts';
import { Meter } from '../../src/net/meter.ts';
import type { Limits, SearchStats } from '../../src/node/config.ts';
import { CidxNode } from '../../src/node/node.ts';
import { parseProfile } from '../../src/profile/parse.ts';
import { startSwarm, stopAll, variedProfiles } from '../support/swarm.ts';

/**
 * Three ways for a search to get its answers, on the same swarm and the same profiles: full
 * records; full records with a filter of what the search already collected (peers leave those
 * out); brief summaries, with only the best candidates' descriptors fetched. The answers must
 * be identical and each cheaper way must receive fewer bytes.
 */
describe('search answers on a 12-node swarm: full, filtered, brief, wide, unshared', () => {
  const swarm = { index: { mode: 'lsh' as const, n: 20, m: 1, seed: 'seen' } };
  let nodes: CidxNode[];
  let plain: CidxNode;
  let filtered: CidxNode;
  let brief: CidxNode;
  let wide: CidxNode;
  let unshared: CidxNode | undefined;
  let extra: (limits: Partial<Limits>) => Promise<CidxNode>;
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
    extra = async (limits: Partial<Limits>) => {
      const n = await CidxNode.create({
        transport: 'memory',
        listen: [`/memory/cidx-replies-${JSON.stringify(limits)}-${Date.now()}`],
        encryption: 'plaintext',
        bootstrap: [nodes[0]?.addrs[0] as string, nodes[5]?.addrs[0] as string],
        swarm,
        timing: { requestTimeoutMs: 20_000, lookupTimeoutMs: 30_000, closestCacheMs: 0 },
        limits,
        ...(limits.reuseConnections === 0 ? {} : { onSearch: (st) => searchStats.push(st) }),
      });
      await n.start();
      return n;
    };
    plain = await extra({ seenFilterBytes: 0, briefReplies: 0 });
    filtered = await extra({ briefReplies: 0 });
    brief = await extra({});
    wide = await extra({ responderK: 1000 });
  }, 240_000);

  afterAll(async () => {
    await stopAll([...nodes, plain, filtered, brief, wide, ...(unshared ? [unshared] : [])]);
  });

  it('returns the same answers for fewer bytes', async () => {
    // Everything a search receives: query answers and the contacts (with descriptors) fetched.
    const received = (n: CidxNode) =>
      n.meter.total('in:query-response').bytes + n.meter.total('in:contacts-get-response').bytes;
    const askers = { plain, filtered, brief };
    const statsBefore = searchStats.length;
    const before = Object.fromEntries(Object.entries(askers).map(([k, n]) => [k, received(n)]));
    for (const p of profiles.slice(0, 12)) {
      const a = await plain.search(p, { k: 5 });
      expect(a.length).toBe(5);
      const answer = a.map((r) => [r.id, r.version, r.similarity, r.contacts]);
      for (const n of [filtered, brief]) {
        const b = await n.search(p, { k: 5 });
        expect(b.map((r) => [r.id, r.version, r.similarity, r.contacts])).toEqual(answer);
      }
    }
    const used = (name: keyof typeof askers) => received(askers[name]) - (before[name] as number);
    expect(used('filtered')).toBeGreaterThan(0);
    expect(used('filtered')).toBeLessThan(0.8 * used('plain'));
    expect(used('brief')).toBeLessThan(0.5 * used('plain'));
    // What the searches told of their requests: every key asked, some nodes under several keys
    // (20 keys on 12 nodes), never fewer requests than nodes.
    const stats = searchStats.slice(statsBefore);
    expect(stats.length).toBe(12 * 3);
    for (const st of stats) {
      expect(st.keys).toBe(20);
      expect(st.requests).toBeGreaterThanOrEqual(st.peers);
      expect(st.peers).toBeLessThanOrEqual(16);
    }
    expect(stats.some((st) => st.repeatQueries > 0)).toBe(true);
  });

  it('responders cut their answers at the top k: asked for everything, they send more', async () => {
    const received = (n: CidxNode) => n.meter.total('in:query-response').bytes;
    const before = [received(brief), received(wide)];
    for (const p of profiles.slice(0, 12)) {
      const a = await brief.search(p, { k: 1 });
      const b = await wide.search(p, { k: 1 });
      expect(b.map((r) => [r.id, r.similarity])).toEqual(a.map((r) => [r.id, r.similarity]));
    }
    const cut = received(brief) - (before[0] as number);
    const all = received(wide) - (before[1] as number);
    expect(cut).toBeGreaterThan(0);
    expect(all).toBeGreaterThan(1.2 * cut);
  });

  it('a responder inflating a claim cannot rank a community higher', async () => {
    const query = profiles[0] as { weights: Record<string, number> };
    const honest = await brief.search(query, { k: 5 });
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
      const hostile = await brief.search(query, { k: 5 });
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
      plain.libp2p,
      { timeoutMs: 5000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const probe = (key: Uint8Array) =>
      ({ v: WIRE_VERSION, swarm: plain.swarm.digest, t: 'probe', key }) as const;
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

  it('without connection reuse, each request opens and closes a connection of its own', async () => {
    const own = await extra({ reuseConnections: 0 });
    unshared = own;
    const opened = new Map<CidxNode, number>([
      [brief, 0],
      [own, 0],
    ]);
    for (const n of opened.keys())
      n.libp2p.addEventListener('connection:open', () => opened.set(n, (opened.get(n) ?? 0) + 1));
    const statsBefore = searchStats.length;
    for (const p of profiles.slice(0, 6)) {
      const a = await brief.search(p, { k: 5 });
      const b = await own.search(p, { k: 5 });
      expect(b.map((r) => [r.id, r.version, r.similarity])).toEqual(
        a.map((r) => [r.id, r.version, r.similarity]),
      );
    }
    // Only brief reports its searches here; unshared sends as many requests.
    const requests = searchStats.slice(statsBefore).reduce((sum, st) => sum + st.requests, 0);
    expect(requests).toBeGreaterThan(0);
    expect(opened.get(own)).toBeGreaterThanOrEqual(requests / 2);
    // With reuse the searches open hardly any: the node is connected to the swarm already.
    expect(opened.get(brief)).toBeLessThan(requests / 4);
    expect(own.libp2p.getConnections().length).toBeLessThan(20);
  });
});
