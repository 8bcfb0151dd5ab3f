import { afterEach, describe, expect, it } from 'vitest';
import { IndexClient } from '../../src/net/client.ts';
import { blobToWire, WIRE_VERSION } from '../../src/net/codec.ts';
import { Meter } from '../../src/net/meter.ts';
import type { CidxNode } from '../../src/node/node.ts';
import type { OwnedCommunity } from '../../src/node/ownership.ts';
import { FakeClock } from '../support/clock.ts';
import { startSwarm, stopAll, variedProfiles, waitFor } from '../support/swarm.ts';

let nodes: CidxNode[] = [];
afterEach(async () => {
  await stopAll(nodes);
});

describe('record lifetime', () => {
  it('records expire after their TTL unless their owner republishes them', async () => {
    // The nodes' clock and timers move only when the test moves them.
    const clock = new FakeClock();
    nodes = await startSwarm(5, { clock });
    const { republishIntervalMs, recordTtlMs, expireIntervalMs } = (nodes[0] as CidxNode).timing;
    const [p, q] = variedProfiles(2, 20, 31);
    const kept = await (nodes[0] as CidxNode).create(p);
    const orphan = await (nodes[1] as CidxNode).create(q);
    expect((await (nodes[2] as CidxNode).search(q))[0]?.id).toBe(orphan.id);
    const orphanKeys = ((nodes[1] as CidxNode).owned(orphan.id) as OwnedCommunity).keys;
    await (nodes[1] as CidxNode).stop(); // the owner is gone: nobody republishes q
    const live = [nodes[0], nodes[2], nodes[3], nodes[4]] as CidxNode[];
    // Copies held by the live nodes, expired or not (only a sweep removes them).
    const copies = () =>
      live.reduce(
        (sum, n) =>
          sum +
          orphanKeys.filter((k) =>
            [...n.table.descriptors(k, Number.NEGATIVE_INFINITY)].some((d) => d.id === orphan.id),
          ).length,
        0,
      );
    expect(copies()).toBeGreaterThan(0);
    const republished: number[] = [];
    (nodes[0] as CidxNode).on('republished', (r) => republished.push(r.communities));

    // Just before the TTL runs out both are there: the orphan's copies still live.
    await clock.advance(recordTtlMs - expireIntervalMs);
    expect((await (nodes[3] as CidxNode).search(q))[0]?.id).toBe(orphan.id);

    // One sweep after it, the orphan is gone from every node; the owner's rounds kept the other.
    await clock.advance(2 * expireIntervalMs);
    expect(republished).toEqual(
      Array(Math.floor((recordTtlMs + expireIntervalMs) / republishIntervalMs)).fill(1),
    );
    expect((await (nodes[3] as CidxNode).search(p))[0]?.id).toBe(kept.id);
    expect((await (nodes[3] as CidxNode).search(q)).map((r) => r.id)).not.toContain(orphan.id);
    expect(copies()).toBe(0);
    for (const n of live) {
      expect(n.info().stored.contacts).toBeLessThanOrEqual(1);
    }
  });
});

describe('notifications', () => {
  it('an update notifies the contacts of the most similar communities with the new version', async () => {
    nodes = await startSwarm(4);
    const [a, b, c] = variedProfiles(3, 20, 41, 1);
    const first = await (nodes[0] as CidxNode).create(a);
    const second = await (nodes[1] as CidxNode).create(b);
    const res = await (nodes[1] as CidxNode).update(second.id, c, {
      contacts: (nodes[2] as CidxNode).addrs,
    });
    expect(res.similar.map((s) => s.id)).toContain(first.id);
    const updated = (nodes[0] as CidxNode).notifications().filter((n) => n.kind === 'updated');
    expect(updated.map((n) => [n.record.id, n.record.version, n.for])).toEqual([
      [second.id, 2, first.id],
    ]);
    // the contacts moved with the update
    expect((await (nodes[3] as CidxNode).get(second.id)).contacts).toEqual(
      (nodes[2] as CidxNode).addrs,
    );
  });

  it('a repeated notification is accepted once', async () => {
    nodes = await startSwarm(3);
    const [a, b] = variedProfiles(2, 20, 51, 1);
    const first = await (nodes[0] as CidxNode).create(a);
    const second = await (nodes[1] as CidxNode).create(b);
    await waitFor(
      () => (nodes[0] as CidxNode).notifications().length === 1,
      undefined,
      'the first notification',
    );
    const client = new IndexClient(
      (nodes[2] as CidxNode).libp2p,
      { timeoutMs: 30_000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const descriptor = ((nodes[1] as CidxNode).owned(second.id) as OwnedCommunity).descriptor;
    const res = await client.request((nodes[0] as CidxNode).peerId, {
      v: WIRE_VERSION,
      swarm: (nodes[0] as CidxNode).swarm.digest,
      t: 'notify',
      kind: 'created',
      rec: blobToWire(descriptor),
      sim: 0.5,
      for: first.id,
    });
    expect(res.outcome).toBe('duplicate');
    expect((nodes[0] as CidxNode).notifications()).toHaveLength(1);
  });
});

describe('removals reach every holder', () => {
  it('an update takes the old descriptor off a holder that the current lookup does not name', async () => {
    nodes = await startSwarm(6);
    const owner = nodes[0] as CidxNode;
    const [p, q] = variedProfiles(2, 20, 91, 2); // two topics: q shares few keys with p
    const { id } = await owner.create(p);
    const own = owner.owned(id) as OwnedCommunity;
    const key = own.keys[0] as string;
    // A peer outside the key's replicas holds a copy too (as after a change of the closest set):
    // plant the owner's genuine record there and tell the owner, as a past store would have.
    const outsider = nodes.find(
      (n) => n !== owner && ![...n.table.descriptors(key, Date.now())].some((d) => d.id === id),
    ) as CidxNode;
    const client = new IndexClient(
      owner.libp2p,
      { timeoutMs: 30_000, maxFrameBytes: 1 << 20 },
      new Meter(),
    );
    const res = await client.request(outsider.peerId, {
      v: WIRE_VERSION,
      swarm: owner.swarm.digest,
      t: 'store',
      key: Buffer.from(key, 'hex'),
      rec: blobToWire(own.descriptor),
      s: 0,
    });
    expect(res.outcome).toBe('stored');
    (own.holders as Record<string, string[]>)[key]?.push(outsider.peerId.toString());
    await owner.update(id, q);
    const stillThere = nodes.filter((n) =>
      [...n.table.descriptors(key, Date.now())].some((d) => d.id === id),
    );
    const newKeys = new Set((owner.owned(id) as OwnedCommunity).keys);
    if (!newKeys.has(key)) expect(stillThere).toEqual([]);
    else
      expect(
        stillThere.every(
          (n) => [...n.table.descriptors(key, Date.now())].find((d) => d.id === id)?.version === 2,
        ),
      ).toBe(true);
  });
});
