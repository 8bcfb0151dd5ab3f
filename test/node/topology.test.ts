import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { INDEX_PROTOCOL } from '../../src/net/codec.ts';
import { routingTablePeers } from '../../src/net/kad-internals.ts';
import { type CidxLibp2p, createHost } from '../../src/net/libp2p.ts';
import { NotOwnerError, SwarmMismatchError } from '../../src/node/errors.ts';
import { CidxNode } from '../../src/node/node.ts';
import { startSwarm, stopAll, TEST_TIMING, variedProfiles, waitFor } from '../support/swarm.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanup.splice(0).map((f) => f()));
});

async function memoryNode(
  opts: Partial<Parameters<typeof CidxNode.create>[0]> = {},
): Promise<CidxNode> {
  const n = await CidxNode.create({
    transport: 'memory',
    listen: [`/memory/topo-${randomBytes(4).toString('hex')}`],
    encryption: 'plaintext',
    timing: TEST_TIMING,
    ...opts,
  });
  cleanup.push(() => n.stop());
  return n;
}

describe('swarms of unusual shapes', () => {
  it('a swarm of one node stores and answers for everything', async () => {
    const n = await memoryNode();
    await n.start();
    const [p, q] = variedProfiles(2, 20, 3);
    const a = await n.create(p);
    const b = await n.create(q);
    expect((await n.search(p))[0]?.id).toBe(a.id);
    expect((await n.get(b.id)).version).toBe(1);
    const { interests } = await n.join(q);
    expect(interests[0]?.community?.id).toBe(b.id);
    await n.update(a.id, q);
    expect((await n.search(q)).map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    await n.dissolve(b.id);
    expect((await n.search(q)).map((r) => r.id)).toEqual([a.id]);
    expect(n.info().stored.descriptors).toBeGreaterThan(0);
  });

  it('a node that just started (no waiting) finds what its bootstrap peer stores', async () => {
    const a = await memoryNode();
    await a.start();
    const b = await memoryNode({ bootstrap: a.addrs });
    await b.start();
    const { id } = await a.create({ weights: { canto: 1.4, Verdi: 0.9, Rigoletto: 0.62 } });
    const [best] = await b.search({ weights: { Verdi: 0.81, Rigoletto: 0.7 } });
    expect(best?.id).toBe(id);
    expect(best?.similarity).toBeCloseTo((0.81 + 0.62) / 3, 10);
    expect(best?.contacts).toEqual(a.addrs);
  });

  it('a node whose neighbours are all gone still stores and answers', async () => {
    const nodes = await startSwarm(3);
    cleanup.push(() => stopAll(nodes));
    const [p, q] = variedProfiles(2, 20, 4);
    const first = nodes[0] as CidxNode;
    const a = await first.create(p);
    await Promise.all([(nodes[1] as CidxNode).stop(), (nodes[2] as CidxNode).stop()]);
    // The dead peers are passed over for the local node (a hang would end at the test timeout).
    expect((await first.search(p))[0]?.id).toBe(a.id);
    const b = await first.create(q);
    expect(b.keys.failed).toBe(0);
    expect((await first.search(q))[0]?.id).toBe(b.id);
  });

  it('refuses to join a swarm with other parameters, with a clear error', async () => {
    const a = await memoryNode({ swarm: { index: { mode: 'lsh', n: 20, m: 1, seed: 'one' } } });
    await a.start();
    const b = await memoryNode({
      swarm: { index: { mode: 'lsh', n: 20, m: 2, seed: 'one' } },
      bootstrap: a.addrs,
    });
    const err = await b.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SwarmMismatchError);
    expect((err as Error).message).toMatch(/"m":1.*"m":2|"m":2.*"m":1/);
  });

  it('a node with other parameters that got connected anyway gets an error, not mixed results', async () => {
    const good = await startSwarm(3, { swarm: { k: 5 } });
    cleanup.push(() => stopAll(good));
    const stray = await memoryNode({ swarm: { k: 7 } });
    await stray.start();
    await stray.libp2p.dial((good[0] as CidxNode).libp2p.getMultiaddrs()[0] as never);
    await waitFor(() => stray.info().peers.foreign > 0, undefined, 'the parameters check');
    const [p] = variedProfiles(1, 20, 5);
    await expect(stray.search(p)).rejects.toThrow(SwarmMismatchError);
    // and the swarm itself keeps working around the stray node
    const c = await (good[1] as CidxNode).create(p);
    expect((await (good[2] as CidxNode).search(p))[0]?.id).toBe(c.id);
  });

  it('only the owner may update or dissolve a community', async () => {
    const nodes = await startSwarm(2);
    cleanup.push(() => stopAll(nodes));
    const [p] = variedProfiles(1, 20, 6);
    const c = await (nodes[0] as CidxNode).create(p);
    await expect((nodes[1] as CidxNode).update(c.id, p)).rejects.toThrow(NotOwnerError);
    await expect((nodes[1] as CidxNode).dissolve(c.id)).rejects.toThrow(NotOwnerError);
  });

  it('a plain kad-dht peer that does not speak the cidx protocol is skipped', async () => {
    const nodes = await startSwarm(8);
    cleanup.push(() => stopAll(nodes));
    const plain: CidxLibp2p = await createHost({
      transport: 'memory',
      listen: [`/memory/plain-${randomBytes(4).toString('hex')}`],
      encryption: 'plaintext',
    });
    await plain.start();
    cleanup.push(async () => {
      await plain.stop();
    });
    // Half the swarm meets it, so lookups run into it (its own self-lookup may meet only one
    // peer: joinSwarm, bootstrap.ts).
    for (const n of nodes.slice(0, 4)) await plain.dial(n.libp2p.getMultiaddrs()[0] as never);
    await waitFor(
      () =>
        nodes.filter((n) => n.libp2p.getPeers().some((p) => p.equals(plain.peerId))).length >= 3,
      undefined,
      'the plain peer in the swarm',
    );
    // In a routing table, lookups name it to cidx's requests.
    await waitFor(
      () =>
        nodes.some((n) =>
          routingTablePeers(n.libp2p.services.profiles)?.includes(plain.peerId.toString()),
        ),
      undefined,
      'the plain peer in a routing table',
    );
    const profiles = variedProfiles(10, 20, 7);
    const ids: string[] = [];
    for (const [i, p] of profiles.entries())
      ids.push((await (nodes[i % 8] as CidxNode).create(p)).id);
    for (const [i, p] of profiles.entries()) {
      expect((await (nodes[(i + 3) % 8] as CidxNode).search(p))[0]?.id).toBe(ids[i]);
    }
    const known = await (nodes[0] as CidxNode).libp2p.peerStore.get(plain.peerId);
    expect(known.protocols).toContain('/cidx/profiles/kad/1.0.0');
    expect(known.protocols).not.toContain(INDEX_PROTOCOL);
  });
});

describe('the real transport stack', () => {
  it('three nodes on TCP 127.0.0.1 with noise and yamux: create, search, notify', async () => {
    const make = async (bootstrap: string[]) => {
      const n = await CidxNode.create({
        transport: 'tcp',
        listen: ['/ip4/127.0.0.1/tcp/0'],
        bootstrap,
        timing: TEST_TIMING,
      });
      cleanup.push(() => n.stop());
      await n.start();
      return n;
    };
    const a = await make([]);
    const b = await make(a.addrs);
    const c = await make(a.addrs);
    await waitFor(
      () => [a, b, c].every((n) => n.info().peers.profiles >= 2),
      undefined,
      'routing tables',
    );
    expect(a.addrs[0]).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+\/p2p\/12D3/);
    const [p, q] = variedProfiles(2, 20, 8, 1); // one topic: the two profiles overlap
    const first = await b.create(p);
    const [found] = await c.search(p);
    expect(found?.id).toBe(first.id);
    expect(found?.contacts).toEqual(b.addrs);
    const second = await c.create(q);
    expect(second.similar.map((s) => s.id)).toContain(first.id);
    expect(second.notified).toBe(1);
    const [n] = b.notifications();
    expect([n?.kind, n?.record.id, n?.for]).toEqual(['created', second.id, first.id]);
  });
});
