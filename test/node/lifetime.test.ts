import { afterEach, describe, expect, it } from 'vitest';
import { IndexClient } from '../../src/net/client.ts';
import { blobToWire, WIRE_VERSION } from '../../src/net/codec.ts';
import { Meter } from '../../src/net/meter.ts';
import type { CidxNode } from '../../src/node/node.ts';
import type { OwnedCommunity } from '../../src/node/ownership.ts';
import { startSwarm, stopAll, variedProfiles, waitFor } from '../support/swarm.ts';

let nodes: CidxNode[] = [];
afterEach(async () => {
  await stopAll(nodes);
});

describe('record lifetime', () => {
  it('records expire after their TTL unless their owner republishes them', async () => {
    nodes = await startSwarm(5, {
      timing: {
        republishIntervalMs: 500,
        recordTtlMs: 1500,
        tombstoneTtlMs: 3000,
        expireIntervalMs: 100,
        closestCacheMs: 0,
      },
    });
    const [p, q] = variedProfiles(2, 20, 31);
    const kept = await (nodes[0] as CidxNode).create(p);
    const orphan = await (nodes[1] as CidxNode).create(q);
    expect((await (nodes[2] as CidxNode).search(q))[0]?.id).toBe(orphan.id);
    await (nodes[1] as CidxNode).stop(); // the owner is gone: nobody republishes q
    await new Promise((r) => setTimeout(r, 2500));
    expect((await (nodes[3] as CidxNode).search(p))[0]?.id).toBe(kept.id);
    expect((await (nodes[3] as CidxNode).search(q)).map((r) => r.id)).not.toContain(orphan.id);
    for (const n of [nodes[0], nodes[2], nodes[3], nodes[4]] as CidxNode[]) {
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
      5000,
      'the first notification',
    );
    const client = new IndexClient(
      (nodes[2] as CidxNode).libp2p,
      { timeoutMs: 5000, maxFrameBytes: 1 << 20 },
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
